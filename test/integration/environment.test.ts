/**
 * A Worker deployed with a bad environment, or cut off from its metadata database, answers in
 * each route family's shape instead of crashing deep inside a request: 500 BAD_ENVIRONMENT
 * naming what is missing, 503 while the metadata database cannot be reached.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api, createAccount } from '../helpers/api';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

type ManagementError = { error: { code: string; message: string } };

/** Every route family, through one request each: the operator route, a caller's read, the auth service. */
async function answersOfEveryFamily(worker: ExtraWorker, token: string) {
  return {
    operator: await api(worker.baseUrl, inject('operatorToken')).post<ManagementError>('/api/v1/accounts', {
      email: 'nobody@example.test',
    }),
    caller: await api(worker.baseUrl, token).get<ManagementError>('/api/v1/projects'),
    signIn: await api(worker.baseUrl).get<{ error: string; code?: string }>(
      '/v1/some-app/auth/github?redirect_uri=myapp%3A%2F%2Fcb&code_challenge=x&code_challenge_method=S256',
    ),
  };
}

describe('a Worker started without a required secret', () => {
  let worker: ExtraWorker;
  beforeAll(async () => {
    worker = await startExtraWorker({ ENCRYPTION_KEYS: '' });
  });
  afterAll(() => worker?.stop());

  it('answers 500 BAD_ENVIRONMENT naming the secret, and logs its name', async () => {
    const res = await api(worker.baseUrl, inject('operatorToken')).post<ManagementError>('/api/v1/accounts', {
      email: 'nobody@example.test',
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
    expect(res.body.error.message).toContain('ENCRYPTION_KEYS');
    if (worker.logFile) expect(await readFile(worker.logFile, 'utf8')).toContain('ENCRYPTION_KEYS');
  });

  it('answers the auth service the same way', async () => {
    const res = await api(worker.baseUrl).get<ManagementError>('/v1/some-app/.well-known/jwks.json');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
  });
});

describe('a Worker started with half of an optional pair', () => {
  let worker: ExtraWorker;
  beforeAll(async () => {
    worker = await startExtraWorker({
      RUNTIME_PATCH_URL: 'http://127.0.0.1:9/patches',
      RUNTIME_PATCH_SECRET: '',
    });
  });
  afterAll(() => worker?.stop());

  it('answers 500 BAD_ENVIRONMENT naming the missing half', async () => {
    const res = await api(worker.baseUrl).get<ManagementError>('/api/v1/projects');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
    expect(res.body.error.message).toContain('RUNTIME_PATCH_SECRET');
  });
});

describe('a Worker deployed without a Durable Object binding', () => {
  let worker: ExtraWorker;
  beforeAll(async () => {
    worker = await startExtraWorker({}, { configPath: 'test/fixtures/wrangler-no-rate-counters.toml' });
  });
  afterAll(() => worker?.stop());

  it('answers 500 BAD_ENVIRONMENT naming the binding, not a crash inside the rate limit', async () => {
    const res = await api(worker.baseUrl).post<ManagementError>('/v1/some-app/oauth/id-token', {
      id_token: 'x',
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
    expect(res.body.error.message).toContain('RATE_COUNTERS');
  });
});

describe('a Worker whose metadata database is unreachable', () => {
  let worker: ExtraWorker;
  let token: string;
  beforeAll(async () => {
    token = (await createAccount()).token;
    const closed = `127.0.0.1:${await freePort()}`;
    const metadataUrl = inject('workerEnv').DATABASE_URL as string;
    worker = await startExtraWorker({
      DATABASE_URL: metadataUrl.replace(/@[^/]+\//, `@${closed}/`),
      NEON_HTTP_ENDPOINT: `http://${closed}/sql`,
      NEON_WS_PROXY: `${closed}/v1`,
    });
  });
  afterAll(() => worker?.stop());

  it('answers 503 in each route family’s own shape, never 500', async () => {
    const { operator, caller, signIn } = await answersOfEveryFamily(worker, token);
    expect(operator.status).toBe(503);
    expect(operator.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(caller.status).toBe(503);
    expect(caller.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(signIn.status).toBe(503);
    expect(typeof signIn.body.error).toBe('string');
    expect(signIn.body.code).toBe('temporarily_unavailable');
  });

  it('still answers /healthz, which needs no database', async () => {
    expect((await api(worker.baseUrl).get('/healthz')).status).toBe(200);
  });
});
