/**
 * Auth apps and one-time codes for the issue-5 scenarios. Codes are minted by walking the real
 * browser flow headlessly: GET /v1/{app}/auth/google, the local Google stand-in's authorize
 * endpoint (which redirects straight back, as after a login), then the Worker's callback,
 * which redeems the provider code at the stand-in, verifies its ID token and redirects to the
 * app's custom scheme with code=<one-time code>. No bench-only path exists in the Worker.
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  type BenchApi,
  createProject,
  inParallel,
  isRouterNotFound,
  RouteMissingError,
  SETUP_REQUEST_TIMEOUT_MS,
} from '../setup-client';
import type { BenchContext, LoadRequest } from '../types';

/** The custom-scheme origin every bench app registers and redirects to. */
export const REDIRECT_URI = 'tetherbench://auth';
/** The Google web client id every bench app registers (the ID tokens' audience). */
export const WEB_CLIENT_ID = 'bench-web.apps.googleusercontent.com';
/** Distinct users per app; sign-ins beyond the first of each link to the existing user. */
export const USERS_PER_APP = 50;

/** A client address for request `i`: every request its own client, so per-client limits never bind. */
export const clientIp = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Creates `count` auth apps with Google enabled and the bench's redirect origin; returns their app ids. */
export async function createAuthApps(api: BenchApi, count: number, label: string): Promise<string[]> {
  const projectId = await createProject(api, `bench ${label}`);
  const tag = randomBytes(3).toString('hex');
  return inParallel(
    Array.from({ length: count }, (_, i) => i),
    4,
    async (i) => {
      const appId = `bench-${label}-${tag}-${i}`;
      const app = await api.call<{ id: string }>('POST', `/api/v1/projects/${projectId}/auth-apps`, {
        app_id: appId,
        name: appId,
      });
      await api.call('PATCH', `/api/v1/projects/${projectId}/auth-apps/${app.id}`, {
        allowed_origins: [REDIRECT_URI],
        providers: { google: { enabled: true, client_id: WEB_CLIENT_ID, client_secret: 'bench-secret' } },
      });
      return appId;
    },
  );
}

/** The `name=value` of the cookie a response set (the start sets one), as a browser sends it back. */
const cookiesOf = (res: Response): string => res.headers.get('set-cookie')?.split(';')[0] ?? '';

/** Follows one redirect step; `cookies` receives what the step set, as a browser keeps them. */
async function follow(
  url: string,
  headers: Record<string, string>,
  step: string,
  cookies?: { value: string },
): Promise<string> {
  const res = await fetch(url, {
    redirect: 'manual',
    headers,
    signal: AbortSignal.timeout(SETUP_REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  const path = new URL(url).pathname;
  if (res.status === 404 && isRouterNotFound(path, text)) throw new RouteMissingError(`GET ${path}`);
  if (cookies) cookies.value = cookiesOf(res);
  const location = res.headers.get('location');
  if (res.status !== 302 || !location)
    throw new Error(`${step} answered ${res.status}: ${text.slice(0, 200)}`);
  return location;
}

/** Walks one browser sign-in for `email` and returns the one-time code and its verifier. */
async function mintOne(ctx: BenchContext, appId: string, email: string, ip: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const headers = { [ctx.clientIpHeader]: ip };
  const start = new URL(`${ctx.stack.authUrl}/v1/${appId}/auth/google`);
  start.searchParams.set('redirect_uri', REDIRECT_URI);
  start.searchParams.set('code_challenge', challenge);
  start.searchParams.set('code_challenge_method', 'S256');
  // The start binds the sign-in to the browser with a cookie the callback must bring back.
  const binding = { value: '' };
  const atProvider = new URL(await follow(start.toString(), headers, 'auth/google', binding));
  atProvider.searchParams.set('login_hint', email);
  const callback = await follow(atProvider.toString(), {}, 'provider authorize');
  const back = new URL(await follow(callback, { ...headers, cookie: binding.value }, 'auth/google/callback'));
  const code = back.searchParams.get('code');
  if (!back.href.startsWith(REDIRECT_URI) || !code)
    throw new Error(`sign-in ended at ${back.href.slice(0, 200)}`);
  return { code, verifier };
}

/**
 * Mints up to `max` codes spread over `apps` (at most `perApp` each), stopping early after
 * `limitMs`; returns the exchange requests, each from its own client address.
 */
export async function mintExchangeRequests(
  ctx: BenchContext,
  apps: readonly string[],
  max: number,
  perApp: number,
  limitMs: number,
): Promise<LoadRequest[]> {
  const total = Math.min(max, apps.length * perApp);
  const deadline = performance.now() + limitMs;
  const minted = await inParallel(
    Array.from({ length: total }, (_, i) => i),
    8,
    async (i) => {
      if (performance.now() > deadline) return null;
      const appId = apps[i % apps.length] as string;
      const email = `user-${Math.floor(i / apps.length) % USERS_PER_APP}@${appId}.bench.test`;
      const { code, verifier } = await mintOne(ctx, appId, email, clientIp(i));
      return {
        method: 'POST',
        path: `/v1/${appId}/oauth/exchange`,
        headers: { 'content-type': 'application/json', [ctx.clientIpHeader]: clientIp(i) },
        body: JSON.stringify({ code, code_verifier: verifier }),
      };
    },
  );
  return minted.filter((r): r is NonNullable<typeof r> => r !== null);
}
