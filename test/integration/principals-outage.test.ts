/**
 * Outside access while the provider's admin side cannot be reached (the
 * PostgreSQL cluster, the Atlas Admin API, IAM): creating, rotating and revoking a principal and
 * rotating a service's own credential answer 503 SERVICE_UNAVAILABLE with nothing changed, in
 * the metadata database, on the cluster or at the stand-ins; the same calls work once it is back.
 */
import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import {
  createBucket,
  createDatabase,
  metadata,
  type Seeded,
  seed,
  startAdminOutageWorker,
} from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { canLogin, superuser } from '../helpers/pg-login';

const world = connectionsWorldForFile();

/** What a request records (a delivery's send state moves in the background and is left out). */
const DELIVERY_RECORD = 'id, kind, project_id, target_id, reason, set_names, unset_names, created_at';

/** Everything the project's services hold: their rows, principals, deliveries, cleanups, c_ roles and the stand-ins. */
async function snapshot(p: Seeded, usernames: string[]) {
  const id = p.project.id;
  const rows = await Promise.all(
    [
      'select * from principals where project_id = $1 order by id',
      'select * from databases where project_id = $1 order by id',
      'select * from buckets where project_id = $1 order by id',
      `select ${DELIVERY_RECORD} from deliveries where project_id = $1 and kind <> 'network_policy' order by id`,
      `select * from credential_cleanups where resource_id in
         (select id from databases where project_id = $1 union select id from buckets where project_id = $1)
       order by 1`,
    ].map((sql) => metadata(sql, [id])),
  );
  const su = await superuser();
  const roles = await su.query(
    'select rolname, rolpassword, rolvaliduntil from pg_authid where rolname = any($1) order by 1',
    [usernames],
  );
  await su.end();
  return {
    rows,
    roles: roles.rows,
    aws: world.aws.state(),
    atlas: world.atlas.requests.filter((r) => r.method !== 'GET').length,
  };
}

type Shown = { id: string; username?: string; password?: string; access_key_id?: string };

describe('503: the admin side is unreachable', () => {
  it('principal create, rotate and revoke and a service credential rotation answer 503 and change nothing; they work once it is back', async () => {
    const p = await seed(world.worker.baseUrl, 1);
    const pg = await createDatabase(p.as, p.project.id);
    const mongo = await createDatabase(p.as, p.project.id, 'mongodb');
    const bucket = await createBucket(p.as, p.project.id);
    const base = `/api/v1/projects/${p.project.id}`;
    const services = [
      { path: `${base}/databases/${pg.id}`, level: 'read-only' },
      { path: `${base}/databases/${mongo.id}`, level: 'connect' },
      { path: `${base}/buckets/${bucket.id}`, level: 'read' },
    ];
    // A live principal on each service, to rotate and revoke while the admin side is down.
    const existing: Shown[] = [];
    for (const s of services) {
      const made = await p.as.post<Shown>(`${s.path}/principals`, { name: 'existing', level: s.level });
      expect(made.status, made.text).toBe(201);
      existing.push(made.body);
    }
    const pgPrincipal = existing[0] as Shown;
    const physical = (
      await metadata<{ p: string }>('select physical_name as p from databases where id = $1', [pg.id])
    )[0]?.p as string;

    const down = await startAdminOutageWorker(world);
    try {
      const usernames = [pgPrincipal.username as string];
      const before = await snapshot(p, usernames);
      // Not vacuous: the principals, the PostgreSQL role and the bucket principal's key are all in it.
      expect(before.rows[0]).toHaveLength(3);
      expect(before.roles).toHaveLength(1);
      expect(JSON.stringify(before.aws)).toContain(existing[2]?.access_key_id as string);

      const client = api(down.baseUrl, p.token);
      const refused: string[] = [];
      const expect503 = async (what: string, res: Promise<{ status: number; body: unknown }>) => {
        const { status, body } = await res;
        if (status !== 503 || (body as { error?: { code?: string } }).error?.code !== 'SERVICE_UNAVAILABLE')
          refused.push(`${what}: ${status} ${JSON.stringify(body)}`);
      };
      for (const [i, s] of services.entries()) {
        const id = (existing[i] as Shown).id;
        await expect503(
          `create on ${s.path}`,
          client.post(`${s.path}/principals`, { name: 'during-outage', level: s.level }),
        );
        await expect503(`rotate on ${s.path}`, client.post(`${s.path}/principals/${id}/rotate`));
        await expect503(`revoke on ${s.path}`, client.delete(`${s.path}/principals/${id}`));
        await expect503(`credential rotation of ${s.path}`, client.post(`${s.path}/credentials/rotate`));
      }
      expect(refused).toEqual([]);
      expect(await snapshot(p, usernames)).toEqual(before);
      // The PostgreSQL principal still logs in with the password it was given.
      expect(await canLogin(physical, pgPrincipal.username as string, pgPrincipal.password as string)).toBe(
        true,
      );

      // Back on a Worker that reaches the admin side, the same calls work.
      for (const [i, s] of services.entries()) {
        const id = (existing[i] as Shown).id;
        const made = await p.as.post(`${s.path}/principals`, { name: 'during-outage', level: s.level });
        expect(made.status, made.text).toBe(201);
        expect((await p.as.post(`${s.path}/principals/${id}/rotate`)).status).toBe(200);
        expect((await p.as.delete(`${s.path}/principals/${id}`)).body).toEqual({ revoked: true });
        expect((await p.as.post(`${s.path}/credentials/rotate`)).status).toBe(200);
      }
      expect(await canLogin(physical, pgPrincipal.username as string, pgPrincipal.password as string)).toBe(
        false,
      );
    } finally {
      await down.stop();
    }
    // Starts a second Worker: slow when the whole suite shares two cores.
  }, 90_000);
});
