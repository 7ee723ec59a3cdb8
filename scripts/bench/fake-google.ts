/**
 * A local stand-in for Google's OpenID endpoints (authorize, token, JWKS), fake by design:
 * the bench needs sign-ins at volume on a machine without internet. It signs RS256 ID
 * tokens with its own key, serves that key at /jwks and counts every JWKS fetch, which is
 * how the id-token scenario proves the Worker caches Google's keys.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** The issuer the stand-in signs as (one of Google's real issuer values). */
export const FAKE_GOOGLE_ISSUER = 'https://accounts.google.com';

/** Claims of an ID token the stand-in signs. */
export interface IdTokenInput {
  aud: string;
  email: string;
  nonce?: string;
  azp?: string;
}

/** A running stand-in. */
export interface FakeGoogle {
  origin: string;
  /** The variables that point the Worker at the stand-in. */
  env: Record<string, string>;
  /** JWKS documents served so far. */
  jwksFetches(): number;
  /** Codes redeemed at /token so far. */
  tokenRequests(): number;
  signIdToken(input: IdTokenInput): Promise<string>;
  stop(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  nonce?: string;
  email: string;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the stand-in on 127.0.0.1 (a free port). */
export async function startFakeGoogle(): Promise<FakeGoogle> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `bench-${randomBytes(6).toString('hex')}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  let jwks = 0;
  let tokens = 0;
  let userSeq = 0;

  const sign = (input: IdTokenInput): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return (
      new SignJWT({
        email: input.email,
        email_verified: true,
        name: input.email.split('@')[0],
        ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
        ...(input.azp !== undefined ? { azp: input.azp } : {}),
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(FAKE_GOOGLE_ISSUER)
        .setAudience(input.aud)
        .setSubject(`sub-${input.email}`)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        // Each token is one of a kind, as Google's are: the Worker burns a token once it signed in.
        .setJti(randomBytes(12).toString('base64url'))
        .sign(privateKey)
    );
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/jwks') {
      jwks += 1;
      return send(200, { keys: [jwk] }, { 'cache-control': 'public, max-age=3600' });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri');
      const state = url.searchParams.get('state');
      if (!redirectUri) return send(400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('base64url');
      const nonce = url.searchParams.get('nonce') ?? undefined;
      userSeq += 1;
      const email = url.searchParams.get('login_hint') ?? `user-${userSeq}@bench.test`;
      codes.set(code, {
        clientId: url.searchParams.get('client_id') ?? '',
        email,
        ...(nonce ? { nonce } : {}),
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (state !== null) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      void readBody(req).then(async (text) => {
        const params = new URLSearchParams(text);
        const pending = codes.get(params.get('code') ?? '');
        if (!pending) return send(400, { error: 'invalid_grant' });
        codes.delete(params.get('code') ?? '');
        tokens += 1;
        const idToken = await sign({ aud: pending.clientId, email: pending.email, nonce: pending.nonce });
        send(200, {
          access_token: randomBytes(16).toString('base64url'),
          id_token: idToken,
          token_type: 'Bearer',
          expires_in: 3600,
        });
      });
      return;
    }
    send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    env: {
      GOOGLE_AUTHORIZE_URL: `${origin}/authorize`,
      GOOGLE_TOKEN_URL: `${origin}/token`,
      GOOGLE_JWKS_URL: `${origin}/jwks`,
      GOOGLE_ISSUERS: FAKE_GOOGLE_ISSUER,
    },
    jwksFetches: () => jwks,
    tokenRequests: () => tokens,
    signIdToken: sign,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
