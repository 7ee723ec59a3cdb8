/**
 * What one tenant may hold on the shared cluster (docs/contract.md §9, The shared cluster):
 * at most MAX_DATABASES_PER_PROJECT (10) live databases per project and MAX_PRINCIPALS_PER_DATABASE
 * (20) live principals per database, each holding up to 20 sessions. Regression (issue 38): a
 * project made principals without end, and with them 386 sessions on one database, while another
 * tenant was refused "remaining connection slots are reserved". Past a cap: 409 LIMIT_REACHED
 * naming the limit, nothing made; a removed one frees its place.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { uniqueName } from '../helpers/api';
import { metadata, type SeededProject, seedProject } from '../helpers/connections';
import { superuser } from '../helpers/pg-login';

type Refusal = { error: { code: string; message: string } };

let p: SeededProject;
const base = () => `/api/v1/projects/${p.project.id}`;

beforeAll(async () => {
  // Two sites: a new database connects to neither, so each costs only its own making.
  p = await seedProject(inject('baseUrl'), 2, { databases: 1 });
});

async function clusterDatabases(prefix: string): Promise<number> {
  const su = await superuser();
  try {
    const res = await su.query<{ n: number }>(
      'select count(*)::int as n from pg_database where datname like $1',
      [`${prefix}%`],
    );
    return res.rows[0]?.n ?? 0;
  } finally {
    await su.end();
  }
}

describe('one tenant making principals and databases without end', () => {
  it('gets 20 principals on a database, then 409 LIMIT_REACHED naming the limit; revoking one frees a place', async () => {
    const db = `${base()}/databases/${(p.databases[0] as { id: string }).id}`;
    const made: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await p.as.post<{ id: string }>(`${db}/principals`, { name: `p${i}`, level: 'connect' });
      expect(res.status, res.text).toBe(201);
      made.push(res.body.id);
    }
    const refused = await p.as.post<Refusal>(`${db}/principals`, { name: 'one-more', level: 'connect' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED']);
    expect(refused.body.error.message).toMatch(/MAX_PRINCIPALS_PER_DATABASE/);
    expect(refused.body.error.message).toMatch(/20/);
    const [rows] = await metadata<{ n: number }>(
      `select count(*)::int as n from principals where resource_id = $1 and revoked_at is null`,
      [(p.databases[0] as { id: string }).id],
    );
    expect(rows?.n).toBe(20);

    expect((await p.as.delete(`${db}/principals/${made[0]}`)).status).toBe(200);
    expect((await p.as.post(`${db}/principals`, { name: 'one-more', level: 'connect' })).status).toBe(201);
  });

  it('gets 10 databases in a project, then 409 LIMIT_REACHED naming the limit with nothing made on the cluster; deleting one frees a place', async () => {
    const prefix = `cap_${uniqueName('x').slice(2, 8)}`;
    const ids: string[] = [];
    for (let i = 1; i < 10; i++) {
      const res = await p.as.post<{ id: string }>(`${base()}/databases`, {
        name: `${prefix}_${i}`,
        engine: 'postgresql',
      });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
    expect(await clusterDatabases(prefix)).toBe(9);
    const refused = await p.as.post<Refusal>(`${base()}/databases`, {
      name: `${prefix}_10`,
      engine: 'postgresql',
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED']);
    expect(refused.body.error.message).toMatch(/MAX_DATABASES_PER_PROJECT/);
    expect(await clusterDatabases(prefix)).toBe(9);

    expect((await p.as.delete(`${base()}/databases/${ids[0]}`)).status).toBe(200);
    const again = await p.as.post(`${base()}/databases`, { name: `${prefix}_10`, engine: 'postgresql' });
    expect(again.status, again.text).toBe(201);
  });
});
