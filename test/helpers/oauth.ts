/**
 * Helpers for the auth-service tests: an extra Worker wired to the provider stand-in, an auth
 * app with providers and origins, PKCE pairs from oauth4webapi, and a complete GitHub browser
 * sign-in driven over HTTP (the browser's part is following two redirects).
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import {
  type ApiClient,
  api,
  createAccount,
  createProject,
  type TestAccount,
  type TestProject,
  uniqueName,
} from './api';
import { type GithubAccount, type ProviderStandIn, STAND_IN_ISSUER } from './provider-stand-in';
import { type ExtraWorker, startExtraWorker } from './worker';

/** The header the test Workers take the client from. */
export const CLIENT_IP_HEADER = 'X-Test-Client-IP';

/** A fresh client identity, so per-client limits of one test do not touch another's. */
export const newClient = (): string =>
  `198.51.${randomBytes(1)[0]}.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;

/** Headers naming a client. */
export const asClient = (client: string = newClient()): Record<string, string> => ({
  [CLIENT_IP_HEADER]: client,
});

/** Starts a Worker whose provider endpoints are the stand-in's and whose clients come from CLIENT_IP_HEADER. */
export function startOAuthWorker(
  standIn: ProviderStandIn,
  env: Record<string, string> = {},
): Promise<ExtraWorker> {
  return startExtraWorker({ ...standIn.env, CLIENT_IP_HEADER, ...env });
}

/** An auth app made for a test, with its owner's client. */
export interface TestAuthApp {
  owner: TestAccount;
  project: TestProject;
  /** The owner's management client. */
  admin: ApiClient;
  id: string;
  slug: string;
  google: { web: string; ios: string; android: string };
  github: { clientId: string };
}

/** Options of {@link createTestAuthApp}. */
export interface AuthAppOptions {
  origins?: string[];
  userLimit?: number | null;
  google?: boolean;
  github?: boolean;
}

/** Creates an account, a project and an auth app with both providers enabled unless told otherwise. */
export async function createTestAuthApp(baseUrl: string, opts: AuthAppOptions = {}): Promise<TestAuthApp> {
  const owner = await createAccount(undefined, baseUrl);
  const project = await createProject(owner.token, undefined, baseUrl);
  const admin = api(baseUrl, owner.token);
  const slug = uniqueName('app');
  const created = await admin.post<{ id: string }>(`/api/v1/projects/${project.id}/auth-apps`, {
    app_id: slug,
  });
  expect(created.status, created.text).toBe(201);
  const google = {
    web: `web-${slug}.apps.test`,
    ios: `ios-${slug}.apps.test`,
    android: `android-${slug}.apps.test`,
  };
  const github = { clientId: `gh-${slug}` };
  const patched = await admin.patch(`/api/v1/projects/${project.id}/auth-apps/${created.body.id}`, {
    allowed_origins: opts.origins ?? ['myapp://auth', 'https://app.example.com'],
    user_limit: opts.userLimit ?? null,
    providers: {
      google: {
        enabled: opts.google ?? true,
        client_id: google.web,
        client_secret: 'google-secret',
        native_client_ids: { ios: google.ios, android: google.android },
      },
      github: { enabled: opts.github ?? true, client_id: github.clientId, client_secret: 'github-secret' },
    },
  });
  expect(patched.status, patched.text).toBe(200);
  return { owner, project, admin, id: created.body.id, slug, google, github };
}

/** A verifier and its S256 challenge, made by oauth4webapi. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** A browser sign-in's start query with a fresh S256 challenge for `redirect_uri`, and its verifier. */
export async function pkceStart(redirect_uri = 'myapp://auth') {
  const { challenge, verifier } = await pkcePair();
  return { query: { redirect_uri, code_challenge: challenge, code_challenge_method: 'S256' }, verifier };
}

/** A GitHub account with a verified primary address. */
export function githubAccount(
  email = `${uniqueName('gh')}@example.test`,
  over: Partial<GithubAccount> = {},
): GithubAccount {
  return {
    user: {
      id: Number.parseInt(randomBytes(4).toString('hex'), 16),
      login: email.split('@')[0] ?? 'someone',
      name: 'Git Hubber',
      avatar_url: 'https://avatars.example/1',
    },
    emails: [
      { email: `secondary-${email}`, primary: false, verified: true },
      { email, primary: true, verified: true },
    ],
    ...over,
  };
}

/** Query parameters of a URL (custom schemes included). */
export function paramsOf(location: string): URLSearchParams {
  const q = location.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : location.slice(q + 1).split('#')[0]);
}

/** Cookies a response sets, as a Cookie header's value. */
export const cookiesOf = (res: { headers: Headers }): string =>
  (res.headers as unknown as { getSetCookie(): string[] })
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');

/**
 * The test process's browser: the binding cookie each start set, by its state, as a browser keeps
 * it between the start and the provider's callback (functions/routes/oauth/browser-binding.ts).
 */
const startedStates = new Map<string, string>();

/** Remembers the binding cookie a start's answer set for `state`. */
export function keepBinding(state: string, res: { headers: Headers }): void {
  startedStates.set(state, cookiesOf(res));
}

/** The Cookie header of the browser that started `state` (none for a state it did not start). */
export const browserCookie = (state: string | undefined | null): Record<string, string> => {
  const cookie = state ? startedStates.get(state) : undefined;
  return cookie ? { cookie } : {};
};

/** Starts /auth/{provider}; returns the provider state from the redirect (asserting a 302 to the provider) and the binding cookie. */
export async function startSignIn(
  baseUrl: string,
  slug: string,
  provider: 'google' | 'github',
  query: Record<string, string>,
): Promise<{ state: string; location: string; cookie: string }> {
  const res = await api(baseUrl).get(`/v1/${slug}/auth/${provider}?${new URLSearchParams(query)}`);
  expect(res.status, res.text).toBe(302);
  const location = res.headers.get('location') ?? '';
  const state = new URL(location).searchParams.get('state');
  if (!state) throw new Error(`no state in ${location}`);
  keepBinding(state, res);
  return { state, location, cookie: cookiesOf(res) };
}

/** Completes a GitHub sign-in for `account` in the browser that started it; returns where the callback sent the browser. */
export async function githubSignIn(
  baseUrl: string,
  standIn: ProviderStandIn,
  slug: string,
  query: Record<string, string>,
  account: GithubAccount = githubAccount(),
): Promise<string> {
  const { state } = await startSignIn(baseUrl, slug, 'github', query);
  const code = `ghcode-${randomBytes(8).toString('hex')}`;
  standIn.githubCode(code, account);
  const res = await api(baseUrl).get(
    `/v1/${slug}/auth/github/callback?${new URLSearchParams({ code, state })}`,
    { headers: browserCookie(state) },
  );
  expect(res.status, res.text).toBe(302);
  return res.headers.get('location') ?? '';
}

/** A one-time code for a fresh GitHub user of the app, with the verifier that redeems it. */
export async function oneTimeCode(
  baseUrl: string,
  standIn: ProviderStandIn,
  slug: string,
  account: GithubAccount = githubAccount(),
  redirectUri = 'myapp://auth',
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = await pkcePair();
  const location = await githubSignIn(
    baseUrl,
    standIn,
    slug,
    { redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256' },
    account,
  );
  const code = paramsOf(location).get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return { code, verifier };
}

/** Disables the app's newest user: the one the latest sign-in of a fresh account created. */
export async function disableNewestUser(app: TestAuthApp): Promise<void> {
  const users = await app.admin.get<{ users: Array<{ id: string }> }>(
    `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users?limit=1000`,
  );
  const newest = users.body.users.at(-1) as { id: string };
  const res = await app.admin.patch(
    `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/users/${newest.id}`,
    { disabled: true },
  );
  expect(res.status).toBe(200);
}

let claimsMade = 0;

/** Claims of a valid Google ID token for audience `aud`, of a fresh Google account unless `over` names one. */
export function googleClaims(aud: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  claimsMade++;
  return {
    iss: STAND_IN_ISSUER,
    aud,
    sub: `google-${Date.now()}-${claimsMade}`,
    email: `person-${Date.now()}-${claimsMade}@example.test`,
    email_verified: true,
    name: 'Native Person',
    picture: 'https://pictures.example/p.png',
    iat: now - 5,
    exp: now + 3600,
    ...over,
  };
}

/** The exchange's answer to a code it does not redeem (the error table of docs/auth-service.md). */
export const INVALID_GRANT = { error: 'invalid or expired code', code: 'invalid_grant' };

/** The session body the exchange, the ID-token sign-in and the refresh answer with. */
export interface Session {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
  user: Record<string, unknown>;
}
