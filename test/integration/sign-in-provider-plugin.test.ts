/**
 * A sign-in provider is one module in one registry: a provider that exists only in test code
 * (test/fixtures/fake-provider/), registered before the Worker's routes are built, is set up by
 * the auth app PATCH, shown by GET, signs in through the browser routes and the code exchange,
 * and signs in natively through /oauth/id-token, with no other file of the service changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_AUTHORIZE_URL } from '../fixtures/fake-provider/provider';
import { api } from '../helpers/api';
import {
  asClient,
  CLIENT_IP_HEADER,
  cookiesOf,
  createTestAuthApp,
  paramsOf,
  pkcePair,
  type TestAuthApp,
} from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let worker: ExtraWorker;
let app: TestAuthApp;
let path: string;

beforeAll(async () => {
  worker = await startExtraWorker({ CLIENT_IP_HEADER }, { entry: 'test/fixtures/fake-provider/worker.ts' });
  app = await createTestAuthApp(worker.baseUrl);
  path = `/api/v1/projects/${app.project.id}/auth-apps/${app.id}`;
});
afterAll(() => worker?.stop());

describe('a provider registered in test code', () => {
  it('is set up by PATCH providers.fake and shown without its secret', async () => {
    const res = await app.admin.patch(path, {
      providers: { fake: { enabled: true, tenant: 't-1', key: 'fake-key' } },
    });
    expect(res.status, res.text).toBe(200);
    expect((res.body as { providers: Record<string, unknown> }).providers.fake).toEqual({
      enabled: true,
      tenant: 't-1',
      key_set: true,
    });
    expect(res.text).not.toContain('fake-key');
    const listed = await app.admin.get<{
      auth_apps: Array<{ id: string; providers: Record<string, unknown> }>;
    }>(`/api/v1/projects/${app.project.id}/auth-apps`);
    expect(listed.body.auth_apps.find((a) => a.id === app.id)?.providers.fake).toMatchObject({
      tenant: 't-1',
    });
  });

  it('signs in through /auth/fake, its callback and the code exchange', async () => {
    const { verifier, challenge } = await pkcePair();
    const start = await api(worker.baseUrl).get(
      `/v1/${app.slug}/auth/fake?${new URLSearchParams({ redirect_uri: 'myapp://auth', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      { headers: asClient() },
    );
    expect(start.status, start.text).toBe(302);
    const to = new URL(start.headers.get('location') ?? '');
    expect(`${to.origin}${to.pathname}`).toBe(FAKE_AUTHORIZE_URL);
    expect(to.searchParams.get('tenant')).toBe('t-1');
    const back = await api(worker.baseUrl).get(
      `/v1/${app.slug}/auth/fake/callback?${new URLSearchParams({ code: 'ok:fake-sub-1:fake1@example.test', state: to.searchParams.get('state') ?? '' })}`,
      { headers: { cookie: cookiesOf(start) } },
    );
    expect(back.status, back.text).toBe(302);
    const code = paramsOf(back.headers.get('location') ?? '').get('code');
    const session = await api(worker.baseUrl).post<{ user: { email: string; providers: string[] } }>(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(session.status, session.text).toBe(200);
    expect(session.body.user).toMatchObject({ email: 'fake1@example.test', providers: ['fake'] });
  });

  it('signs in natively with its ID token, and refuses one of another tenant', async () => {
    const signIn = (token: string) =>
      api(worker.baseUrl).post<{ user: { email: string } }>(
        `/v1/${app.slug}/oauth/id-token`,
        { provider: 'fake', id_token: token },
        { headers: asClient() },
      );
    const ok = await signIn('fake-id:fake-sub-2:fake2@example.test:t-1');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.user.email).toBe('fake2@example.test');
    const other = await signIn('fake-id:fake-sub-2:fake2@example.test:t-2');
    expect([other.status, other.body]).toEqual([401, { error: 'invalid id token', code: 'invalid_token' }]);
  });

  it('null removes it; then its routes answer as for a provider the app lacks', async () => {
    const res = await app.admin.patch(path, { providers: { fake: null } });
    expect(res.status).toBe(200);
    expect((res.body as { providers: Record<string, unknown> }).providers.fake).toBeUndefined();
    const start = await api(worker.baseUrl).get(
      `/v1/${app.slug}/auth/fake?${new URLSearchParams({ redirect_uri: 'https://app.example.com/cb' })}`,
      { headers: asClient() },
    );
    expect([start.status, start.body]).toEqual([400, { error: 'provider fake is not enabled for this app' }]);
  });
});
