/**
 * Sites and services through HTTP: naming rules, collisions, validation errors naming the field,
 * and PostgreSQL databases that exist for real on the cluster (created, stopped, started, dropped).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount, createProject, uniqueName } from '../helpers/api';
import { superuser } from '../helpers/pg-login';

let as: ReturnType<typeof api>;
let projectId: string;

beforeAll(async () => {
  const owner = await createAccount();
  as = api().as(owner.token);
  projectId = (await createProject(owner.token)).id;
});

async function databaseExists(name: string): Promise<{ name: string; allowConn: boolean } | undefined> {
  const admin = await superuser();
  try {
    const res = await admin.query<{ datname: string; datallowconn: boolean }>(
      "SELECT datname, datallowconn FROM pg_database WHERE datname LIKE '%' || $1 || '\\_%'",
      [name.replace(/-/g, '_')],
    );
    const row = res.rows[0];
    return row ? { name: row.datname, allowConn: row.datallowconn } : undefined;
  } finally {
    await admin.end();
  }
}

describe('validation errors name the field and change nothing', () => {
  it('malformed JSON is 400, not 500', async () => {
    const res = await as.post(`/api/v1/projects/${projectId}/sites`, undefined, { rawBody: '{"slug": ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
  });

  it('a wrong type names the field', async () => {
    const res = await as.post(`/api/v1/projects/${projectId}/databases`, { name: 42, engine: 'postgresql' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'name' } });
  });

  it('an unknown engine names the field', async () => {
    const res = await as.post(`/api/v1/projects/${projectId}/databases`, { name: 'x1', engine: 'mysql' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: 'engine' } });
  });

  it('an unknown field is refused', async () => {
    const res = await as.post(`/api/v1/projects/${projectId}/buckets`, { name: 'ok1', colour: 'red' });
    expect(res.status).toBe(400);
  });

  it('an oversized body is 413 (contract §9: every body is limited before it is parsed)', async () => {
    const res = await as.put(`/api/v1/projects/${projectId}/sites/00000000-0000-4000-8000-000000000000/env`, {
      vars: { BIG: 'x'.repeat(300_000) },
    });
    expect(res.status).toBe(413);
  });

  it('a missing body is 400', async () => {
    const res = await as.post(`/api/v1/projects/${projectId}/sites`);
    expect(res.status).toBe(400);
  });

  it.each(['1abc', 'Upper', 'has space', '', 'a'.repeat(64)])('database name %j is refused', async (name) => {
    const res = await as.post(`/api/v1/projects/${projectId}/databases`, { name, engine: 'postgresql' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { field: 'name' } });
  });

  it('a site id that is not a uuid is 404', async () => {
    expect((await as.get(`/api/v1/projects/${projectId}/sites/not-a-uuid/env`)).status).toBe(404);
  });
});

describe('names', () => {
  it('two buckets whose names map to the same variable form: the second is 409 NAME_CONFLICT', async () => {
    const base = uniqueName('b').replace('-', '');
    expect((await as.post(`/api/v1/projects/${projectId}/buckets`, { name: `${base}-x` })).status).toBe(201);
    const res = await as.post(`/api/v1/projects/${projectId}/buckets`, { name: `${base}_x` });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'NAME_CONFLICT' } });
    const list = await as.get<{ buckets: Array<{ name: string }> }>(`/api/v1/projects/${projectId}/buckets`);
    expect(list.body.buckets.map((b) => b.name)).not.toContain(`${base}_x`);
  });

  it('a duplicate database name is 409', async () => {
    const name = uniqueName('m').replace('-', '_');
    expect(
      (await as.post(`/api/v1/projects/${projectId}/databases`, { name, engine: 'mongodb' })).status,
    ).toBe(201);
    expect(
      (await as.post(`/api/v1/projects/${projectId}/databases`, { name, engine: 'postgresql' })).status,
    ).toBe(409);
  });

  it('a site slug is unique per project', async () => {
    const slug = uniqueName('s');
    expect((await as.post(`/api/v1/projects/${projectId}/sites`, { slug })).status).toBe(201);
    expect((await as.post(`/api/v1/projects/${projectId}/sites`, { slug })).status).toBe(409);
  });

  it('mongodb databases default to a replica set; postgresql has none', async () => {
    const mongo = await as.post<{ replica_set: boolean }>(`/api/v1/projects/${projectId}/databases`, {
      name: uniqueName('m').replace('-', '_'),
      engine: 'mongodb',
    });
    expect(mongo.body.replica_set).toBe(true);
  });
});

describe('a PostgreSQL database exists for real', () => {
  it("stops while a process the admin may not end is in it (autovacuum's, a superuser's): 200, and it refuses logins", async () => {
    const name = `busy_${uniqueName('x').replace('-', '_')}`;
    const created = await as.post<{ id: string }>(`/api/v1/projects/${projectId}/databases`, {
      name,
      engine: 'postgresql',
    });
    expect(created.status, created.text).toBe(201);
    const physical = (await databaseExists(name))?.name as string;
    const platform = await superuser(physical);
    try {
      const stopped = await as.post<{ status: string }>(
        `/api/v1/projects/${projectId}/databases/${created.body.id}/stop`,
      );
      expect(stopped.status, stopped.text).toBe(200);
      expect(await databaseExists(name)).toMatchObject({ allowConn: false });
    } finally {
      await platform.end();
    }
  });

  it.each(['pg_reserved', 'plain'])(
    '%s: is created on the cluster, stopped refuses logins, started allows them, deleted is dropped',
    async (prefix) => {
      const name = `${prefix}_${uniqueName('x').replace('-', '_')}`;
      const created = await as.post<{ id: string; status: string }>(
        `/api/v1/projects/${projectId}/databases`,
        {
          name,
          engine: 'postgresql',
        },
      );
      expect(created.status).toBe(201);
      expect(created.body.status).toBe('running');
      expect(await databaseExists(name)).toMatchObject({ allowConn: true });

      const stopped = await as.post<{ status: string }>(
        `/api/v1/projects/${projectId}/databases/${created.body.id}/stop`,
      );
      expect(stopped.body.status).toBe('stopped');
      expect(await databaseExists(name)).toMatchObject({ allowConn: false });

      const started = await as.post<{ status: string }>(
        `/api/v1/projects/${projectId}/databases/${created.body.id}/start`,
      );
      expect(started.body.status).toBe('running');
      expect(await databaseExists(name)).toMatchObject({ allowConn: true });

      expect((await as.delete(`/api/v1/projects/${projectId}/databases/${created.body.id}`)).status).toBe(
        200,
      );
      expect(await databaseExists(name)).toBeUndefined();
      const list = await as.get<{ databases: Array<{ id: string }> }>(
        `/api/v1/projects/${projectId}/databases`,
      );
      expect(list.body.databases.map((d) => d.id)).not.toContain(created.body.id);
    },
  );
});
