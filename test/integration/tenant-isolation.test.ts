/**
 * Tenants against the cluster: no connect-level app reaches the admin's rights, the
 * cluster's own databases or another tenant's admin work, through any name, lock or login.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lockSecret, privilegesLock } from '../../functions/adapters/postgres-sql';
import { CLUSTER_ADMIN_ROLE } from '../../scripts/local/cluster-admin';
import { METADATA_DATABASE } from '../../scripts/local/metadata-database';
import { type ApiClient, api, createAccount, createProject } from '../helpers/api';
import { createDatabase, createSite, metadata, type Service } from '../helpers/connections';
import { customerAdminUrl, localPostgresAdmin, loginAs } from '../helpers/pg-login';
import { appSession, attackOutcome, databaseUrlOf, plantEveryShadow } from '../helpers/tenant-attack';
import { triggerScheduled } from '../helpers/worker';

let as: ApiClient;
let projectId: string;
const sessions: pg.Client[] = [];

const connect = (siteId: string, dbId: string, level: string) =>
  as.post(`/api/v1/projects/${projectId}/sites/${siteId}/connections`, {
    kind: 'database',
    resource_id: dbId,
    level,
  });

/** A database with one connect-level app, and a session as that app. */
async function tenant(): Promise<{
  db: Service;
  app: pg.Client;
  role: string;
  password: string;
  database: string;
}> {
  const db = await createDatabase(as, projectId);
  const site = await createSite(as, projectId);
  expect((await connect(site.id, db.id, 'connect')).status).toBe(201);
  const url = new URL(await databaseUrlOf(as, projectId, site.id));
  const app = await appSession(url.toString());
  sessions.push(app);
  return {
    db,
    app,
    role: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
  };
}

beforeAll(async () => {
  const owner = await createAccount();
  as = api().as(owner.token);
  projectId = (await createProject(owner.token)).id;
});

afterAll(async () => {
  for (const s of sessions) await s.end().catch(() => undefined);
});

describe('admin sessions in a customer database', () => {
  it('run no function or operator a tenant planted under any name the admin code uses, in public or in a schema named after the admin', async () => {
    const t = await tenant();
    await plantEveryShadow(t.app, t.role, [CLUSTER_ADMIN_ROLE, 'postgres']);
    const [reader, mover] = [await createSite(as, projectId), await createSite(as, projectId)];
    const path = `/api/v1/projects/${projectId}`;
    expect((await connect(reader.id, t.db.id, 'read-only')).status).toBe(201);
    expect((await connect(mover.id, t.db.id, 'connect')).status).toBe(201);
    expect((await connect(mover.id, t.db.id, 'read-only')).status).toBe(201);
    expect((await as.post(`${path}/sites/${mover.id}/connections/database/${t.db.id}/rotate`)).status).toBe(
      204,
    );
    expect((await as.delete(`${path}/sites/${reader.id}/connections/database/${t.db.id}`)).status).toBe(200);
    expect((await as.post(`${path}/databases/${t.db.id}/stop`)).status).toBe(200);
    expect((await as.post(`${path}/databases/${t.db.id}/start`)).status).toBe(200);
    await triggerScheduled();
    expect(await attackOutcome(t.database, t.role)).toEqual({ superuser: false, calls: [] });
  });

  it('are made by a role that is not superuser', async () => {
    const who = await localPostgresAdmin().run((c) =>
      c.query<{ rolsuper: boolean; path: string }>(
        "SELECT r.rolsuper, pg_catalog.current_setting('search_path') AS path FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER",
      ),
    );
    expect(who.rows[0]?.rolsuper).toBe(false);
    expect(who.rows[0]?.path).toMatch(/^pg_catalog, ?pg_temp$/);
  });
});

describe("the cluster's own databases", () => {
  it('refuse every tenant role: no app logs in to postgres, template1 or the metadata database', async () => {
    const t = await tenant();
    for (const database of ['postgres', 'template1', METADATA_DATABASE]) {
      const refused = await loginAs(database, t.role, t.password).then(
        async (c) => {
          await c.end();
          return null;
        },
        (err: { code?: string }) => err.code,
      );
      expect(refused, database).toBe('42501');
    }
  });

  it('ask every host for a SCRAM-SHA-256 password, never a clear-text one', async () => {
    const rules = (await readFile(join(inject('dataDir'), 'pg', 'pg_hba.conf'), 'utf8'))
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(rules.length).toBeGreaterThan(0);
    // A principal's allowlist (contract §7) adds `reject` rules, which ask for no password at all.
    for (const rule of rules) expect(rule).toMatch(/\s(scram-sha-256|reject)$/);
  });
});

describe('locks a tenant holds', () => {
  // Regression: the privileges lock lived in `postgres`, which every role could enter,
  // and had no lock_timeout: tenant A's lock stalled tenant B's connect for 39 s.
  it("tenant A holding B's privileges lock in every database it can enter does not stall B's connect", async () => {
    const a = await tenant();
    const b = await createDatabase(as, projectId);
    const [row] = await metadata<{ physical_name: string }>(
      'select physical_name from databases where id = $1',
      [b.id],
    );
    const key = `tether privileges ${row?.physical_name}`;
    const lock = 'SELECT pg_catalog.pg_advisory_lock(pg_catalog.hashtextextended($1, 0))';
    await a.app.query(lock, [key]);
    // Before the fix the admin database was open to every role, and the lock was taken there.
    const adminDb = await loginAs('postgres', a.role, a.password).catch(() => null);
    if (adminDb) {
      sessions.push(adminDb);
      await adminDb.query(lock, [key]);
    }
    expect(adminDb).toBeNull();
    const site = await createSite(as, projectId);
    expect((await connect(site.id, b.id, 'read-only')).status).toBe(201);
    expect((await connect((await createSite(as, projectId)).id, b.id, 'connect')).status).toBe(201);
  });

  it('its own database lock held by the tenant (a key pg_locks showed it) makes its read-only connect answer 503 within seconds, leaving nothing behind', async () => {
    const a = await tenant();
    // The key is not derivable by a tenant; one that saw it in pg_locks while Tether held it can take it.
    await a.app.query('BEGIN');
    await a.app.query(privilegesLock(lockSecret(customerAdminUrl()), a.database));
    const site = await createSite(as, projectId);
    const stalled = await connect(site.id, a.db.id, 'read-only');
    expect(stalled.status).toBe(503);
    const listed = await as.get<{ connections: unknown[] }>(
      `/api/v1/projects/${projectId}/sites/${site.id}/connections`,
    );
    expect(listed.body.connections).toEqual([]);
    await a.app.query('ROLLBACK');
    expect((await connect(site.id, a.db.id, 'read-only')).status).toBe(201);
  });
});
