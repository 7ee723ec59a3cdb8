/**
 * Gives the local cluster the admin layout a production cluster should have: customer databases
 * are managed by `tether_admin`, a role that is not superuser (CREATEROLE, CREATEDB,
 * pg_signal_backend), and no tenant role may connect to `postgres`, `template1` or the metadata
 * database. Run as the superuser at every start (idempotent).
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';

/** The role the Worker manages customer databases as. */
export const CLUSTER_ADMIN_ROLE = 'tether_admin';

/** The functions that create a large object (see restrictLargeObjects in functions/adapters/postgres-large-objects.ts). */
const LARGE_OBJECT_CREATORS =
  'FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer), pg_catalog.lo_from_bytea(oid, bytea)';

async function adminPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-admin-password');
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing) return existing;
  const password = randomBytes(24).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function asSuperuser(superUrl: string, database: string, work: (c: pg.Client) => Promise<void>) {
  const url = new URL(superUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query('SET search_path = pg_catalog, pg_temp');
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates (or refreshes) the cluster admin role and closes the cluster's own databases to
 * tenants; returns the admin's URL on database `postgres` (the Worker's CUSTOMER_DB_ADMIN_URL).
 */
export async function prepareClusterAdmin(
  superUrl: string,
  dataDir: string,
  metadataDatabase: string,
): Promise<string> {
  const password = await adminPassword(dataDir);
  const role = pg.escapeIdentifier(CLUSTER_ADMIN_ROLE);
  await asSuperuser(superUrl, 'postgres', async (c) => {
    const found = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [CLUSTER_ADMIN_ROLE]);
    const attributes = 'LOGIN NOSUPERUSER CREATEROLE CREATEDB NOREPLICATION NOBYPASSRLS';
    const pw = pg.escapeLiteral(password);
    if (found.rowCount === 0) await c.query(`CREATE ROLE ${role} ${attributes} PASSWORD ${pw}`);
    else await c.query(`ALTER ROLE ${role} ${attributes} PASSWORD ${pw}`);
    // Roles it creates are granted to it with SET and INHERIT, so it may own their databases.
    await c.query(`ALTER ROLE ${role} SET createrole_self_grant = 'set, inherit'`);
    await c.query(`ALTER ROLE ${role} SET search_path = pg_catalog, pg_temp`);
    await c.query(`GRANT pg_signal_backend TO ${role}`);
    // The connections the cluster keeps for it (reserved_connections), so no tenant starves it.
    await c.query(`GRANT pg_use_reserved_connections TO ${role}`);
    // It sets every tenant login's temp_file_limit, which only a superuser may otherwise set.
    await c.query(`GRANT SET ON PARAMETER temp_file_limit TO ${role}`);
    // Roles made by an earlier run's superuser admin (a data folder from before this layout).
    const earlier = await c.query<{ rolname: string }>(
      `SELECT r.rolname FROM pg_roles r
        WHERE r.oid >= 16384 AND NOT r.rolsuper AND r.rolname <> $1
          AND NOT EXISTS (SELECT 1 FROM pg_auth_members m
                           WHERE m.roleid = r.oid AND m.member = (SELECT oid FROM pg_roles WHERE rolname = $1))`,
      [CLUSTER_ADMIN_ROLE],
    );
    for (const { rolname } of earlier.rows) {
      await c.query(
        `GRANT ${pg.escapeIdentifier(rolname)} TO ${role} WITH ADMIN TRUE, INHERIT TRUE, SET TRUE`,
      );
    }
    for (const db of ['postgres', 'template1', metadataDatabase]) {
      await c.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${pg.escapeIdentifier(db)} FROM PUBLIC`);
    }
    await c.query(`GRANT CONNECT ON DATABASE postgres TO ${role}`);
  });
  // New databases copy template1's function grants: only the admin may hand out large objects.
  await asSuperuser(superUrl, 'template1', async (c) => {
    await c.query(`REVOKE EXECUTE ON ${LARGE_OBJECT_CREATORS} FROM PUBLIC`);
    await c.query(`GRANT EXECUTE ON ${LARGE_OBJECT_CREATORS} TO ${role} WITH GRANT OPTION`);
  });
  const url = new URL(superUrl);
  url.username = CLUSTER_ADMIN_ROLE;
  url.password = password;
  url.pathname = '/postgres';
  return url.toString();
}
