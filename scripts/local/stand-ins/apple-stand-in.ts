/**
 * A local stand-in for Sign in with Apple, written from Apple's published REST reference, so
 * `npm start` can finish an Apple sign-in on a machine with no internet. Never part of the
 * production path. `GET /auth/authorize` shows a page where you pick a test person; the answer
 * goes back as Apple sends it with `response_mode=form_post`: a form POSTed to the redirect URI
 * with `code` and `state`, and `user` (the name, as JSON) on a person's first authorization for
 * that client only. `POST /auth/token` takes `client_id`, `client_secret`, `code`, `grant_type`
 * and `redirect_uri` and answers `{access_token, token_type, expires_in, refresh_token, id_token}`
 * or Apple's `{error}` (invalid_request, invalid_client, invalid_grant, unsupported_grant_type).
 * The client secret must be an ES256 JWT naming a key, issued by a team for the client, addressed
 * to Apple and at most six months long, as Apple requires; its signature is not checked (no
 * developer account registers a key here). ID tokens are RS256 from `GET /auth/keys`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { idTokenSigner, listenLocal } from './id-token-signer';

/** A person the picker offers; `relay` hides the address behind Apple's private relay. */
const PEOPLE = [
  {
    sub: '001234.appleseed0000000000000000000001.0001',
    first: 'Jo',
    last: 'Appleseed',
    email: 'jo@example.com',
    relay: false,
  },
  {
    sub: '001234.appleseed0000000000000000000002.0002',
    first: 'Sam',
    last: 'Private',
    email: 'x7k2p9q4rt@privaterelay.appleid.com',
    relay: true,
  },
] as const;

/** A running Apple stand-in. */
export interface AppleStandIn {
  url: string;
  /** Worker variables pointing Sign in with Apple here. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SIX_MONTHS = 15_777_000;

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, type: string, body: string, csp?: string) {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    ...(csp ? { 'content-security-policy': csp } : {}),
  });
  res.end(body);
}

/** Apple's `invalid_client` checks of a client secret; undefined when it passes. */
function clientSecretProblem(secret: string, clientId: string): string | undefined {
  try {
    const header = decodeProtectedHeader(secret);
    const claims = decodeJwt(secret);
    if (header.alg !== 'ES256' || !header.kid) return 'alg ES256 and a kid';
    if (!claims.iss || claims.sub !== clientId || claims.aud !== 'https://appleid.apple.com')
      return 'iss, sub, aud';
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || claims.exp < now || claims.exp - (claims.iat ?? now) > SIX_MONTHS)
      return 'exp';
    return undefined;
  } catch {
    return 'not a JWT';
  }
}

/** Starts the Apple stand-in on 127.0.0.1 (a free port unless given). */
export async function startAppleStandIn(opts: { port?: number } = {}): Promise<AppleStandIn> {
  const signer = await idTokenSigner('apple-local-');
  const codes = new Map<
    string,
    { sub: string; clientId: string; redirectUri: string; nonce?: string; expires: number }
  >();
  const authorized = new Set<string>();
  let origin = '';

  const authorize = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const params = req.method === 'POST' ? await form(req) : url.searchParams;
    const redirect = params.get('redirect_uri') ?? '';
    if (!params.get('client_id') || !/^https?:\/\//.test(redirect) || params.get('response_type') !== 'code')
      return send(
        res,
        400,
        'text/html; charset=utf-8',
        '<p>invalid_request: client_id, redirect_uri and response_type=code are required</p>',
      );
    const hidden = [...params.entries()]
      .filter(([k]) => k !== 'person')
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join('');
    if (req.method !== 'POST') {
      const buttons = PEOPLE.map(
        (p, i) =>
          `<li><button name="person" value="${i}">${escapeHtml(`${p.first} ${p.last}`)}${p.relay ? ' (Hide My Email)' : ''}</button></li>`,
      ).join('');
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        `<!doctype html><title>Sign in with Apple (local stand-in)</title><h1>Sign in with Apple</h1><p>Tether's local stand-in for Apple: pick a test person.</p><form method="post" action="/auth/authorize">${hidden}<ul>${buttons}</ul></form><form method="post" action="/auth/authorize">${hidden}<button name="person" value="cancel">Cancel</button></form>`,
      );
    }
    const person = PEOPLE[Number(params.get('person'))];
    const fields: Record<string, string> = { state: params.get('state') ?? '' };
    if (!person) fields.error = 'user_cancelled_authorize';
    else {
      const code = `c${randomBytes(24).toString('hex')}.0.local`;
      const clientId = params.get('client_id') ?? '';
      codes.set(code, {
        sub: person.sub,
        clientId,
        redirectUri: redirect,
        nonce: params.get('nonce') ?? undefined,
        expires: Date.now() + 300_000,
      });
      fields.code = code;
      // Apple sends the name only the first time a person authorizes a client.
      if (!authorized.has(`${person.sub}|${clientId}`)) {
        authorized.add(`${person.sub}|${clientId}`);
        fields.user = JSON.stringify({
          name: { firstName: person.first, lastName: person.last },
          email: person.email,
        });
      }
    }
    const inputs = Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
      .join('');
    send(
      res,
      200,
      'text/html; charset=utf-8',
      `<!doctype html><title>Returning to the app</title><form id="f" method="post" action="${escapeHtml(redirect)}">${inputs}<button>Continue</button></form><script>document.getElementById('f').submit()</script>`,
      "default-src 'none'; script-src 'unsafe-inline'; form-action *",
    );
  };

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const f = await form(req);
    const json = (status: number, body: unknown) =>
      send(res, status, 'application/json', JSON.stringify(body));
    if (f.get('grant_type') !== 'authorization_code') return json(400, { error: 'unsupported_grant_type' });
    const clientId = f.get('client_id') ?? '';
    if (!clientId || clientSecretProblem(f.get('client_secret') ?? '', clientId))
      return json(400, { error: 'invalid_client' });
    const pending = codes.get(f.get('code') ?? '');
    codes.delete(f.get('code') ?? '');
    if (
      !pending ||
      pending.expires < Date.now() ||
      pending.clientId !== clientId ||
      pending.redirectUri !== f.get('redirect_uri')
    )
      return json(400, { error: 'invalid_grant' });
    const person = PEOPLE.find((p) => p.sub === pending.sub) ?? PEOPLE[0];
    const idToken = await signer.sign({
      issuer: origin,
      audience: clientId,
      subject: person.sub,
      lifetimeSeconds: 600,
      nonce: pending.nonce,
      claims: {
        email: person.email,
        email_verified: 'true',
        is_private_email: person.relay ? 'true' : 'false',
        auth_time: Math.floor(Date.now() / 1000),
        nonce_supported: true,
      },
    });
    json(200, {
      access_token: `a${randomBytes(16).toString('hex')}`,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: `r${randomBytes(16).toString('hex')}`,
      id_token: idToken,
    });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (url.pathname === '/auth/authorize') return await authorize(req, res, url);
      if (req.method === 'POST' && url.pathname === '/auth/token') return await token(req, res);
      if (req.method === 'GET' && url.pathname === '/auth/keys')
        return send(res, 200, 'application/json', JSON.stringify({ keys: [signer.jwk] }));
      send(res, 404, 'application/json', '{"error":"not_found"}');
    })().catch((err: unknown) => send(res, 500, 'application/json', JSON.stringify({ error: String(err) })));
  });
  const listening = await listenLocal(server, opts.port);
  origin = listening.origin;
  return {
    url: origin,
    env: {
      APPLE_AUTHORIZE_URL: `${origin}/auth/authorize`,
      APPLE_TOKEN_URL: `${origin}/auth/token`,
      APPLE_JWKS_URL: `${origin}/auth/keys`,
      APPLE_ISSUER: origin,
    },
    stop: listening.stop,
  };
}
