/**
 * Databases and buckets created or deleted while other requests change the same project. These
 * writes read once and write once, guarded, so what a race leaves is pinned here:
 * simultaneous creations of one name leave one service and nothing of the others at the cluster
 * or the provider; a deletion racing a connect on the same site leaves that site with exactly
 * the other connection; of simultaneous deletions one succeeds and the other is refused.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/api';
import {
  connectionsPath,
  createBucket,
  createDatabase,
  effectiveVars,
  metadata,
  projectPath,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { superuser } from '../helpers/pg-login';

const world = connectionsWorldForFile();

const ATTEMPTS = 4;

/** How many databases and roles of the cluster were made for service name `name`. */
async function onCluster(name: string): Promise<{ databases: number; mainUsers: number; readers: number }> {
  const admin = await superuser();
  try {
    const like = `${name}\\_%`;
    const count = async (sql: string, pattern: string) =>
      Number((await admin.query<{ n: string }>(sql, [pattern])).rows[0]?.n);
    return {
      databases: await count('select count(*) as n from pg_database where datname like $1', like),
      mainUsers: await count('select count(*) as n from pg_roles where rolname like $1', `u\\_${like}`),
      readers: await count('select count(*) as n from pg_roles where rolname like $1', `r\\_${like}`),
    };
  } finally {
    await admin.end();
  }
}

describe('simultaneous creations of one name', () => {
  it('of a database: one 201, the others 409, and one database with its users on the cluster', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const name = uniqueName('race').replace(/-/g, '_');
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () =>
        p.as.post(`${projectPath(p)}/databases`, { name, engine: 'postgresql' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await onCluster(name)).toEqual({ databases: 1, mainUsers: 1, readers: 1 });
    // The only site holds the one database made, through its initial connection.
    const site = await p.as.get<{ connections: Array<{ resource_name: string }> }>(connectionsPath(p));
    expect(site.body.connections.map((c) => c.resource_name)).toEqual([name]);
  });

  it('of a bucket: one 201, the others 409, and one bucket with its two keys at the provider', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const name = uniqueName('race');
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => p.as.post(`${projectPath(p)}/buckets`, { name })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    const state = world.aws.state();
    expect(Object.keys(state.buckets).filter((b) => b.startsWith(`${name}-`))).toHaveLength(1);
    // The bucket's own key and the initial connection's, nothing of the refused attempts.
    const keys = Object.values(state.users).filter((u) => u.path.startsWith(`/tether/${name}-`));
    expect(keys).toHaveLength(2);
  });
});

describe('a deletion racing a connect on the site holding the service', () => {
  it('both succeed: the site keeps the new connection and nothing of the deleted database', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const doomed = await createDatabase(p.as, p.project.id);
    const bucket = await createBucket(p.as, p.project.id);
    // The bucket's initial connection is undone first, so the connect below changes the site.
    expect((await p.as.delete(`${connectionsPath(p)}/bucket/${bucket.id}`)).body).toEqual({ removed: true });
    const [deleted, connected] = await Promise.all([
      p.as.delete(`${projectPath(p)}/databases/${doomed.id}`),
      p.as.post(connectionsPath(p), { kind: 'bucket', resource_id: bucket.id }),
    ]);
    expect([deleted.status, connected.status]).toEqual([200, 201]);
    const site = await p.as.get<{ connections: Array<{ resource_id: string }> }>(connectionsPath(p));
    expect(site.body.connections.map((c) => c.resource_id)).toEqual([bucket.id]);
    const vars = await effectiveVars(p);
    expect(Object.keys(vars).some((k) => k.startsWith('DATABASE_URL'))).toBe(false);
    expect(await onCluster(doomed.name)).toEqual({ databases: 0, mainUsers: 0, readers: 0 });
  });
});

describe('simultaneous deletions of one service', () => {
  it('of a connected database: one 200; the other 404, or 503 when the cluster refused its simultaneous drop; the site left with no connection', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const db = await createDatabase(p.as, p.project.id);
    const answers = await Promise.all([0, 1].map(() => p.as.delete(`${projectPath(p)}/databases/${db.id}`)));
    const [first, second] = answers.map((a) => a.status).sort();
    expect(first).toBe(200);
    expect([404, 503]).toContain(second);
    expect((await p.as.delete(`${projectPath(p)}/databases/${db.id}`)).status).toBe(404);
    const site = await p.as.get<{ connections: unknown[] }>(connectionsPath(p));
    expect(site.body.connections).toEqual([]);
    expect(await onCluster(db.name)).toEqual({ databases: 0, mainUsers: 0, readers: 0 });
  });

  it('of an unconnected bucket: one 200, the other 404, and its key queued for deletion once', async () => {
    const p = await seed(world.worker.baseUrl, 0);
    const bucket = await createBucket(p.as, p.project.id);
    const answers = await Promise.all(
      [0, 1].map(() => p.as.delete(`${projectPath(p)}/buckets/${bucket.id}`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const cleanups = await metadata('select 1 from credential_cleanups where resource_id = $1', [bucket.id]);
    expect(cleanups).toHaveLength(1);
  });
});
