/**
 * A test-only stand-in for Google's token and JWKS endpoints, GitHub's token, user and e-mail
 * endpoints, and Apple's token and key endpoints, on 127.0.0.1. ID tokens are signed with an RSA
 * key whose public half it serves as a JWKS; tests register what each provider code stands for.
 * It counts JWKS fetches.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** The issuer the stand-in's ID tokens carry. */
export const STAND_IN_ISSUER = 'https://accounts.google.test';

/** The issuer of the stand-in's Apple ID tokens. */
export const APPLE_STAND_IN_ISSUER = 'https://appleid.apple.test';

/** Apple's audience of a client secret (Apple's published rule). */
const APPLE_AUDIENCE = 'https://appleid.apple.com';

/** What a GitHub code stands for. */
export interface GithubAccount {
  user: { id: number; login: string; name?: string | null; avatar_url?: string };
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/** A running stand-in. */
export interface ProviderStandIn {
  url: string;
  /** Worker variables pointing every provider endpoint here. */
  env: Record<string, string>;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** The kid of the served key. */
  kid: string;
  /** Signs claims as an RS256 ID token with the served key (header overridable). */
  signIdToken(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Signs with a key the JWKS does not hold, under the served kid (a bad signature). */
  signWithOtherKey(claims: Record<string, unknown>): Promise<string>;
  /** The served public JWK. */
  publicJwk: JWK;
  /** Makes Google's token endpoint answer `code` with an ID token of these claims (nonce filled in later). */
  googleCode(code: string, claims: Record<string, unknown>): void;
  /** Makes GitHub's endpoints answer `code` with this account. */
  githubCode(code: string, account: GithubAccount): void;
  /** Makes Apple's token endpoint answer `code` with an ID token of these claims (iss, aud, iat, exp filled in). */
  appleCode(code: string, claims: Record<string, unknown>): void;
  /** Form bodies the token endpoints received, in order. */
  tokenRequests: Array<{ path: string; form: URLSearchParams }>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * What is wrong with the client secret of an Apple token request (Apple answers invalid_client):
 * an ES256 JWT naming a key, issued by a team for the request's client_id, addressed to Apple,
 * valid for at most ten minutes (our own rule; Apple allows six months). Its signature is the
 * test's to check against the key it configured (tokenRequests).
 */
function appleClientSecretProblem(form: URLSearchParams): string | undefined {
  try {
    const secret = form.get('client_secret') ?? '';
    const header = decodeProtectedHeader(secret);
    const claims = decodeJwt(secret);
    if (header.alg !== 'ES256' || !header.kid) return 'client_secret must be ES256 with a kid';
    if (!claims.iss || claims.sub !== form.get('client_id')) return 'iss must be the team, sub the client_id';
    if (claims.aud !== APPLE_AUDIENCE) return `aud must be ${APPLE_AUDIENCE}`;
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.exp - claims.iat > 600)
      return 'client_secret must expire within ten minutes';
    if (form.get('grant_type') !== 'authorization_code') return 'grant_type must be authorization_code';
    return undefined;
  } catch {
    return 'client_secret is not a JWT';
  }
}

/** Starts the stand-in on a free port. */
export async function startProviderStandIn(): Promise<ProviderStandIn> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256');
  const kid = `standin-${Date.now().toString(36)}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const googleCodes = new Map<string, Record<string, unknown>>();
  const githubCodes = new Map<string, GithubAccount>();
  const githubTokens = new Map<string, GithubAccount>();
  const appleCodes = new Map<string, Record<string, unknown>>();
  const tokenRequests: ProviderStandIn['tokenRequests'] = [];

  const sign = (claims: Record<string, unknown>, key: CryptoKey, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT', ...header }).sign(key);

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (req.method === 'GET' && url.pathname === '/google/certs') {
        fetches++;
        return send(res, 200, { keys: [publicJwk] });
      }
      if (req.method === 'POST' && url.pathname === '/google/token') {
        const form = new URLSearchParams(await readBody(req));
        tokenRequests.push({ path: url.pathname, form });
        const claims = googleCodes.get(form.get('code') ?? '');
        googleCodes.delete(form.get('code') ?? '');
        if (!claims) return send(res, 400, { error: 'invalid_grant' });
        const now = Math.floor(Date.now() / 1000);
        const idToken = await sign(
          { iss: STAND_IN_ISSUER, aud: form.get('client_id'), iat: now, exp: now + 3600, ...claims },
          privateKey,
        );
        return send(res, 200, { access_token: 'ya29.stand-in', id_token: idToken, token_type: 'Bearer' });
      }
      if (req.method === 'GET' && url.pathname === '/apple/keys') {
        fetches++;
        return send(res, 200, { keys: [publicJwk] });
      }
      if (req.method === 'POST' && url.pathname === '/apple/token') {
        const form = new URLSearchParams(await readBody(req));
        tokenRequests.push({ path: url.pathname, form });
        const claims = appleCodes.get(form.get('code') ?? '');
        appleCodes.delete(form.get('code') ?? '');
        if (!claims) return send(res, 400, { error: 'invalid_grant' });
        const problem = appleClientSecretProblem(form);
        if (problem) return send(res, 400, { error: 'invalid_client', error_description: problem });
        const now = Math.floor(Date.now() / 1000);
        const idToken = await sign(
          { iss: APPLE_STAND_IN_ISSUER, aud: form.get('client_id'), iat: now, exp: now + 600, ...claims },
          privateKey,
        );
        return send(res, 200, {
          access_token: 'a.stand-in',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'r.stand-in',
          id_token: idToken,
        });
      }
      if (req.method === 'POST' && url.pathname === '/github/token') {
        const form = new URLSearchParams(await readBody(req));
        tokenRequests.push({ path: url.pathname, form });
        const account = githubCodes.get(form.get('code') ?? '');
        githubCodes.delete(form.get('code') ?? '');
        // GitHub answers 200 with an error member for a bad code.
        if (!account) return send(res, 200, { error: 'bad_verification_code' });
        const token = `gho_${Math.random().toString(36).slice(2)}`;
        githubTokens.set(token, account);
        return send(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      if (req.method === 'GET' && url.pathname.startsWith('/github/api/')) {
        const account = githubTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (!account) return send(res, 401, { message: 'Bad credentials' });
        if (!req.headers['user-agent']) return send(res, 403, { message: 'User-Agent required' });
        if (url.pathname === '/github/api/user') return send(res, 200, account.user);
        if (url.pathname === '/github/api/user/emails') return send(res, 200, account.emails);
      }
      send(res, 404, { error: 'not_found' });
    })().catch((err: unknown) => send(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stand-in has no port');
  const url = `http://127.0.0.1:${address.port}`;

  return {
    url,
    env: {
      GOOGLE_AUTHORIZE_URL: `${url}/google/authorize`,
      GOOGLE_TOKEN_URL: `${url}/google/token`,
      GOOGLE_JWKS_URL: `${url}/google/certs`,
      GOOGLE_ISSUERS: `${STAND_IN_ISSUER},accounts.google.test`,
      GITHUB_AUTHORIZE_URL: `${url}/github/authorize`,
      GITHUB_TOKEN_URL: `${url}/github/token`,
      GITHUB_API_URL: `${url}/github/api`,
      APPLE_AUTHORIZE_URL: `${url}/apple/auth/authorize`,
      APPLE_TOKEN_URL: `${url}/apple/token`,
      APPLE_JWKS_URL: `${url}/apple/keys`,
      APPLE_ISSUER: APPLE_STAND_IN_ISSUER,
    },
    jwksFetches: () => fetches,
    kid,
    publicJwk,
    signIdToken: (claims, header) => sign(claims, privateKey, header),
    signWithOtherKey: (claims) => sign(claims, other.privateKey),
    googleCode: (code, claims) => googleCodes.set(code, claims),
    githubCode: (code, account) => githubCodes.set(code, account),
    appleCode: (code, claims) => appleCodes.set(code, claims),
    tokenRequests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
