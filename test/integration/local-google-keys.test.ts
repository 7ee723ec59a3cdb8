/**
 * `npm start` accepts Google's real ID tokens beside its stand-in's: the stand-ins it starts
 * (scripts/local/stand-ins/index.ts) give the Worker the stand-in's key set and issuer followed by
 * Google's published ones. Google is played here by a key set on loopback served as Google's
 * (GOOGLE_PUBLISHED_JWKS_URL), signing with Google's real issuer; no request leaves the machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StandIns, startStandIns } from '../../scripts/local/stand-ins';
import { TEST_USERS } from '../../scripts/local/stand-ins/sign-in-stand-in';
import { api } from '../helpers/api';
import {
  asClient,
  CLIENT_IP_HEADER,
  createTestAuthApp,
  googleClaims,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ProviderStandIn, startProviderStandIn } from '../helpers/provider-stand-in';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

const GOOGLE_VARS = ['GOOGLE_AUTHORIZE_URL', 'GOOGLE_TOKEN_URL', 'GOOGLE_JWKS_URL', 'GOOGLE_ISSUERS'];

let dataDir: string;
let googleItself: ProviderStandIn;
let standIns: StandIns;
let worker: ExtraWorker;
let app: TestAuthApp;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tether-google-keys-'));
  googleItself = await startProviderStandIn();
  // What npm start's stack does, with Google's published key set served on loopback.
  standIns = await startStandIns(
    dataDir,
    { GOOGLE_PUBLISHED_JWKS_URL: `${googleItself.url}/google/certs` },
    { signIn: true },
  );
  const googleEnv = Object.fromEntries(GOOGLE_VARS.map((name) => [name, standIns.env[name] ?? '']));
  worker = await startExtraWorker({ ...googleEnv, CLIENT_IP_HEADER });
  app = await createTestAuthApp(worker.baseUrl);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await standIns?.stop();
  await googleItself?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const signIn = (idToken: string) =>
  api(worker.baseUrl).post<Record<string, unknown>>(
    `/v1/${app.slug}/oauth/id-token`,
    { provider: 'google', id_token: idToken },
    { headers: asClient() },
  );

/** An ID token of the sign-in stand-in for the app's web client, through its picker and token endpoint. */
async function standInIdToken(): Promise<string> {
  const standInUrl = standIns.signInUrl ?? '';
  const redirectUri = 'http://127.0.0.1:8976/done';
  const picked = await fetch(`${standInUrl}/google/authorize`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      client_id: app.google.web,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      user: TEST_USERS[0]?.id ?? '',
    }),
  });
  const code = new URL(picked.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const token = await fetch(`${standInUrl}/google/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: app.google.web,
      client_secret: 'any',
      redirect_uri: redirectUri,
    }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { id_token: string }).id_token;
}

describe("npm start's Google keys", () => {
  it('name the stand-in first, then Google, with both issuers', () => {
    expect(standIns.env.GOOGLE_JWKS_URL).toBe(
      `${standIns.signInUrl}/google/certs,${googleItself.url}/google/certs`,
    );
    expect(standIns.env.GOOGLE_ISSUERS?.split(',')).toEqual([
      `${standIns.signInUrl}/google`,
      'https://accounts.google.com',
      'accounts.google.com',
    ]);
  });

  it("a native sign-in with an ID token signed by Google's published keys is 200", async () => {
    const claims = googleClaims(app.google.ios, { iss: 'https://accounts.google.com' });
    const res = await signIn(await googleItself.signIdToken(claims));
    expect(res.status, res.text).toBe(200);
    expect((res.body.user as { email: string }).email).toBe(claims.email);
  });

  it("a native sign-in with the stand-in's ID token is 200 as well", async () => {
    const res = await signIn(await standInIdToken());
    expect(res.status, res.text).toBe(200);
    expect((res.body.user as { email: string }).email).toBe(TEST_USERS[0]?.email);
  });

  it('a token signed by neither key set is 401', async () => {
    const claims = googleClaims(app.google.ios, { iss: 'https://accounts.google.com' });
    const res = await signIn(await googleItself.signWithOtherKey(claims));
    expect([res.status, res.body]).toEqual([401, { error: 'invalid id token', code: 'invalid_token' }]);
  });

  it("Google's key with an issuer that is neither Google's nor the stand-in's is 401", async () => {
    const claims = googleClaims(app.google.ios, { iss: 'https://evil.example' });
    const res = await signIn(await googleItself.signIdToken(claims));
    expect(res.status).toBe(401);
  });
});
