/**
 * A PostgreSQL server at its connection limit (SQLSTATE 53300, too many connections; Neon's
 * computes and pooler answer it too) is a passing refusal, answered 503 SERVICE_UNAVAILABLE with
 * Retry-After and a message naming the limit, with nothing changed:
 * - the metadata database: every route that needs it, read or write;
 * - the customer cluster: a database created while the admin cannot connect is not recorded.
 * Each Worker here reaches its database as a role whose CONNECTION LIMIT is 0, so every
 * connection it opens is refused exactly as a full server refuses it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../helpers/api';
import { superuser } from '../helpers/pg-login';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

type Refusal = { error: { code: string; message: string } };

const role = `full_${randomBytes(4).toString('hex')}`;
const password = randomBytes(12).toString('hex');
let metadataFull: ExtraWorker;
let clusterFull: ExtraWorker;

/** `url` logging in as the role that may hold no connection. */
function asFullRole(url: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = password;
  return u.toString();
}

beforeAll(async () => {
  const su = await superuser();
  try {
    await su.query(`create role "${role}" login connection limit 0 password '${password}'`);
  } finally {
    await su.end();
  }
  metadataFull = await startExtraWorker({ DATABASE_URL: asFullRole(inject('metadataUrl')) });
  clusterFull = await startExtraWorker({
    CUSTOMER_DB_ADMIN_URL: asFullRole(inject('workerEnv').CUSTOMER_DB_ADMIN_URL as string),
  });
}, 120_000);

afterAll(async () => {
  await metadataFull?.stop();
  await clusterFull?.stop();
  const su = await superuser();
  await su.query(`drop role if exists "${role}"`).finally(() => su.end());
});

describe('the metadata database at its connection limit', () => {
  it('a write and a read are 503 with Retry-After naming the limit; nothing is written', async () => {
    const owner = await createAccount();
    const full = api(metadataFull.baseUrl, owner.token);
    const write = await full.post<Refusal>('/api/v1/projects', {
      slug: `full-${randomBytes(3).toString('hex')}`,
    });
    expect(write.status, write.text).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');
    expect(write.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(write.body.error.message).toMatch(
      /connection limit \(too many connections\); nothing was changed/,
    );
    const read = await full.get<Refusal>('/api/v1/projects');
    expect(read.status, read.text).toBe(503);
    expect(read.headers.get('retry-after')).toBe('5');
    // Through a Worker that can connect: the project was never made.
    const projects = await api(undefined, owner.token).get<{ projects: unknown[] }>('/api/v1/projects');
    expect(projects.body.projects).toEqual([]);
  });
});

describe('the customer cluster at its connection limit', () => {
  it('creating a database is 503 with Retry-After naming the limit, and none is recorded', async () => {
    const owner = await createAccount();
    const project = await createProject(owner.token);
    const name = `full_${randomBytes(3).toString('hex')}`;
    const res = await api(clusterFull.baseUrl, owner.token).post<Refusal>(
      `/api/v1/projects/${project.id}/databases`,
      { name, engine: 'postgresql' },
    );
    expect(res.status, res.text).toBe(503);
    expect(res.body.error.message).toMatch(/connection limit; retry after 5 seconds\)/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const list = await api(undefined, owner.token).get<{ databases: unknown[] }>(
      `/api/v1/projects/${project.id}/databases`,
    );
    expect(list.body.databases).toEqual([]);
  });
});
