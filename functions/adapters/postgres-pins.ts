/**
 * What other tenants made depend on a role. Every tenant reads every role name from `pg_roles`
 * and may GRANT on its own objects to any of them; each such grant is a dependency
 * (`pg_shdepend`) that makes `DROP ROLE` fail, so one tenant could pin another's roles and stall
 * its deletions. Before a role is dropped, the admin removes, in every database that holds such
 * a dependency, what references the role there (`DROP OWNED BY`: privileges granted to it and
 * anything it came to own there), and privileges on shared objects (another tenant's database).
 */
import type { Client } from '@neondatabase/serverless';
import { ident } from './postgres-sql';

/** Runs `work` in an admin session on `database` (the admin's own when omitted). */
export type AdminRun = <T>(work: (client: Client) => Promise<T>, database?: string) => Promise<T>;

/**
 * Each role of `$1` with a dependency outside database `$2`: the database that holds it (null: a
 * shared object, such as a grant on another tenant's database) and whether it takes connections.
 */
const PINS = `
  SELECT DISTINCT r.rolname::pg_catalog.text AS role, d.datname::pg_catalog.text AS database,
         d.datallowconn AS open
    FROM pg_catalog.pg_shdepend s
    JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) s.refobjid
    LEFT JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.dbid
   WHERE s.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_authid'::pg_catalog.regclass
     AND r.rolname OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.name[])
     AND (d.datname IS NULL OR d.datname OPERATOR(pg_catalog.<>) $2::pg_catalog.name)`;

/**
 * Removes what references the roles `names` outside their own database `own`: in each other
 * database that holds a dependency, `DROP OWNED BY` as the admin (a stopped database is opened
 * for the moment it takes and closed again, its sessions ended); grants on shared objects go with
 * such a statement, or one run in the admin's database. Roles that do not exist are skipped.
 */
export async function releasePins(run: AdminRun, names: string[], own: string): Promise<void> {
  if (names.length === 0) return;
  const pins = await run(
    async (client) =>
      (
        await client.query<{ role: string; database: string | null; open: boolean | null }>(PINS, [
          names,
          own,
        ])
      ).rows,
  );
  const byDatabase = new Map<string, { open: boolean; roles: Set<string> }>();
  const sharedOnly = new Set<string>();
  for (const pin of pins) {
    if (pin.database === null) {
      sharedOnly.add(pin.role);
      continue;
    }
    const entry = byDatabase.get(pin.database) ?? { open: pin.open !== false, roles: new Set<string>() };
    entry.roles.add(pin.role);
    byDatabase.set(pin.database, entry);
  }
  for (const [database, { open, roles }] of byDatabase) {
    for (const role of roles) sharedOnly.delete(role);
    const statement = `DROP OWNED BY ${[...roles].map(ident).join(', ')}`;
    if (!open) await setConnections(run, database, true);
    try {
      await run((client) => client.query(statement), database);
    } finally {
      if (!open) await setConnections(run, database, false);
    }
  }
  if (sharedOnly.size > 0)
    await run((client) => client.query(`DROP OWNED BY ${[...sharedOnly].map(ident).join(', ')}`));
}

/** Opens or closes a database to connections; closing ends the sessions opened meanwhile. */
async function setConnections(run: AdminRun, database: string, open: boolean): Promise<void> {
  await run(async (client) => {
    await client.query(`ALTER DATABASE ${ident(database)} WITH ALLOW_CONNECTIONS ${open}`);
    if (!open) {
      await client.query(
        'SELECT pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a WHERE a.datname OPERATOR(pg_catalog.=) $1::pg_catalog.name',
        [database],
      );
    }
  });
}
