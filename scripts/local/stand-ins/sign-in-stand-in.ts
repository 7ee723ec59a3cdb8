/**
 * A local stand-in for Google's and GitHub's sign-in, so the browser sign-in can be finished on
 * a machine with no internet: `npm start` runs it when no provider endpoint is configured.
 * Never part of the production path.
 *
 * Each provider brings its own behaviour (sign-in/provider-stand-in.ts; listed in
 * sign-in/provider-stand-ins.ts): Google is an OpenID Connect provider here (sign-in/google-stand-in.ts),
 * GitHub its OAuth app flow (sign-in/github-stand-in.ts). Every one shows the same page where you
 * pick a test user, and its codes are checked here. Any client id and secret an auth app is given is
 * accepted (the point is to try an app without registering one anywhere), but everything the
 * real providers check in a request is checked: the redirect URI and client id of the code,
 * single use, expiry, and the PKCE verifier.
 *
 * Not `oidc-provider` (the tests' real provider): it serves only registered clients with fixed
 * ids, secrets and redirect URIs, while a local default must take whatever an auth app is given.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { idTokenSigner, listenLocal } from './id-token-signer';
import type { PendingCode, ProviderStandIn, StandInKit, TestUser } from './sign-in/provider-stand-in';
import { PROVIDER_STAND_INS } from './sign-in/provider-stand-ins';
import { authorizeError, clientAuth } from './sign-in-oidc';

export type { TestUser } from './sign-in/provider-stand-in';

/** The people the picker offers. */
export const TEST_USERS: readonly TestUser[] = [
  { id: '100000000000000000001', email: 'alice@example.com', name: 'Alice Example', verified: true },
  { id: '100000000000000000002', email: 'bob@example.com', name: 'Bob Example', verified: true },
  { id: '100000000000000000003', email: 'unverified@example.com', name: 'Una Verified', verified: false },
];

/** A running stand-in. */
export interface SignInStandIn {
  url: string;
  /** Worker variables pointing every provider here. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const CODE_TTL_MS = 60_000;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action *",
  });
  res.end(html);
}

/** The page that lists the test users; each button posts the request back with the user. */
function pickerPage(provider: ProviderStandIn, params: URLSearchParams, users: readonly TestUser[]): string {
  const hidden = [...params.entries()]
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const { title, name } = provider;
  const buttons = users
    .map(
      (u) =>
        `<li><button type="submit" name="user" value="${u.id}">${escapeHtml(u.name)} &lt;${escapeHtml(u.email)}&gt;${u.verified ? '' : ' (e-mail not verified)'}</button></li>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign in with ${title} (local stand-in)</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
ul{list-style:none;padding:0}li{margin:.5rem 0}button{font:inherit;width:100%;padding:.75rem;text-align:left;cursor:pointer}</style></head>
<body><h1>Sign in with ${title}</h1>
<p>This is Tether's local stand-in for ${title}: no real account is used. Pick a test user.</p>
<form method="post" action="/${name}/authorize">${hidden}<ul>${buttons}</ul></form>
<form method="post" action="/${name}/authorize">${hidden}<input type="hidden" name="user" value="deny">
<button type="submit">Cancel (the app gets access_denied)</button></form></body></html>`;
}

function isUrl(text: string): boolean {
  try {
    return new URL(text).protocol !== '';
  } catch {
    return false;
  }
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Starts the stand-in on 127.0.0.1 (a free port unless given). */
export async function startSignInStandIn(
  opts: { port?: number; users?: readonly TestUser[] } = {},
): Promise<SignInStandIn> {
  // Tests offer people of their own (addresses no other test signs in with).
  const users = opts.users ?? TEST_USERS;
  const signer = await idTokenSigner('local-', 'JWT');
  const codes = new Map<string, PendingCode>();
  let origin = '';

  /** The authorization request's own errors, as the providers show them: a page, no redirect. */
  const checkAuthorize = (params: URLSearchParams): string | undefined => {
    if (!params.get('client_id')) return 'client_id is missing';
    const redirect = params.get('redirect_uri');
    if (!redirect || !isUrl(redirect)) return 'redirect_uri is missing or not a URL';
    const method = params.get('code_challenge_method');
    if (params.get('code_challenge') && method !== 'S256') return 'code_challenge_method must be S256';
    return undefined;
  };

  const authorize = async (
    provider: ProviderStandIn,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ) => {
    const params = req.method === 'POST' ? await readForm(req) : url.searchParams;
    const problem = checkAuthorize(params);
    if (problem)
      return sendHtml(res, 400, `<!doctype html><p>Bad sign-in request: ${escapeHtml(problem)}</p>`);
    const back = new URL(params.get('redirect_uri') ?? '');
    const state = params.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const refused = authorizeError(params, provider.openIdConnect);
    if (refused) {
      back.searchParams.set('error', refused);
      return void res.writeHead(303, { location: back.toString() }).end();
    }
    if (req.method !== 'POST') return sendHtml(res, 200, pickerPage(provider, params, users));
    const choice = params.get('user');
    const user = users.find((u) => u.id === choice);
    if (!user) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, {
        provider: provider.name,
        user,
        clientId: params.get('client_id') ?? '',
        redirectUri: params.get('redirect_uri') ?? '',
        nonce: params.get('nonce') ?? undefined,
        scopes: (params.get('scope') ?? '').split(' ').filter(Boolean),
        challenge: params.get('code_challenge') ?? undefined,
        expires: Date.now() + CODE_TTL_MS,
      });
      back.searchParams.set('code', code);
    }
    res.writeHead(303, { location: back.toString() });
    res.end();
  };

  /** Redeems a code once; the error the real token endpoints give otherwise. */
  const redeem = (provider: string, req: IncomingMessage, form: URLSearchParams): PendingCode | string => {
    const client = clientAuth(req.headers.authorization, form);
    if ('error' in client) return client.error;
    const code = form.get('code') ?? '';
    const pending = codes.get(code);
    codes.delete(code);
    if (!pending || pending.provider !== provider || pending.expires < Date.now()) return 'invalid_grant';
    if (pending.clientId !== client.clientId) return 'invalid_grant';
    if (pending.redirectUri !== form.get('redirect_uri')) return 'invalid_grant';
    if (pending.challenge !== undefined && s256(form.get('code_verifier') ?? '') !== pending.challenge) {
      return 'invalid_grant';
    }
    return pending;
  };

  const providers = PROVIDER_STAND_INS.map((provider) => {
    const kit: StandInKit = {
      origin: () => origin,
      redeem: (req, form) => redeem(provider.name, req, form),
      signer,
      readForm,
      sendJson,
    };
    return { provider, endpoints: provider.endpoints(kit) };
  });

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const path = url.pathname;
      for (const { provider, endpoints } of providers) {
        if (path === `/${provider.name}/authorize`) return await authorize(provider, req, res, url);
        if (await endpoints(path, req, res)) return;
      }
      sendJson(res, 404, { error: 'not_found' });
    })().catch((err: unknown) => sendJson(res, 500, { error: String(err) }));
  });
  const listening = await listenLocal(server, opts.port);
  origin = listening.origin;
  return {
    url: origin,
    env: Object.assign({}, ...PROVIDER_STAND_INS.map((p) => p.env(origin))),
    stop: listening.stop,
  };
}
