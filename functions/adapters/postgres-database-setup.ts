/**
 * A customer database's set-up on the cluster (postgres-admin.ts): the database owned by the
 * admin, its shared owner group `<db>_rw` (which owns its `public` schema), its read-only group
 * `<db>_ro` and its main user; and the hand-over of a database made when `<db>_rw` owned it.
 */

import { restrictLargeObjects } from './postgres-large-objects';
import type { AdminRun } from './postgres-pins';
import { type ClusterLimits, ident, literal, roleSettings, rolesOf } from './postgres-sql';

/** What the shared owner group holds on its database, which the admin owns (no ALTER DATABASE). */
const OWNER_GROUP_DATABASE_RIGHTS = 'CONNECT, TEMPORARY, CREATE';

/**
 * Creates database `db`, its groups and its main user (logging in with `mainPasswordClause`),
 * in the admin's database and then in `db` itself; a failure leaves what was made to the caller to drop.
 */
export async function createDatabaseAndGroups(
  run: AdminRun,
  limits: ClusterLimits,
  db: string,
  mainUser: string,
  mainPasswordClause: string,
): Promise<void> {
  const { owner, reader } = rolesOf(db);
  await run(async (client) => {
    await client.query(`CREATE ROLE ${ident(owner)} NOLOGIN`);
    await client.query(`CREATE ROLE ${ident(reader)} NOLOGIN`);
    await client.query(
      `CREATE ROLE ${ident(mainUser)} LOGIN ${mainPasswordClause} CONNECTION LIMIT ${limits.role} IN ROLE ${ident(owner)}`,
    );
    for (const statement of roleSettings(mainUser, limits)) await client.query(statement);
    // Objects the main user creates belong to the shared owner group, like every connect-level app.
    await client.query(`ALTER ROLE ${ident(mainUser)} SET role = ${literal(owner)}`);
    await client.query(`CREATE DATABASE ${ident(db)} CONNECTION LIMIT ${limits.database}`);
    await client.query(`REVOKE ALL ON DATABASE ${ident(db)} FROM PUBLIC`);
    await client.query(`GRANT ${OWNER_GROUP_DATABASE_RIGHTS} ON DATABASE ${ident(db)} TO ${ident(owner)}`);
    await client.query(`GRANT CONNECT ON DATABASE ${ident(db)} TO ${ident(reader)}`);
  });
  await run(async (client) => {
    await client.query(`ALTER SCHEMA public OWNER TO ${ident(owner)}`);
    await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await client.query(`GRANT USAGE ON SCHEMA public TO ${ident(reader)}`);
    // Read-only apps see everything the owner group holds, including tables and schemas made later.
    await client.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} GRANT SELECT ON TABLES TO ${ident(reader)}`,
    );
    await client.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} GRANT SELECT ON SEQUENCES TO ${ident(reader)}`,
    );
    await client.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${ident(owner)} GRANT USAGE ON SCHEMAS TO ${ident(reader)}`,
    );
    await restrictLargeObjects(client, owner);
  }, db);
}

/**
 * Hands database `db`, made when `<db>_rw` owned it, to the admin and restores its connection
 * limit, each change after `lock` (the database's lock statement); see postgres-admin.ts secureOwnership.
 */
export async function secureDatabaseOwnership(
  run: AdminRun,
  lock: string,
  limits: ClusterLimits,
  db: string,
): Promise<void> {
  const { owner } = rolesOf(db);
  await run(async (client) => {
    const schema = await client.query<{ owner: string }>(
      "SELECT pg_catalog.pg_get_userbyid(n.nspowner) AS owner FROM pg_catalog.pg_namespace n WHERE n.nspname = 'public'",
    );
    if (schema.rows[0]?.owner === 'pg_database_owner')
      await client.query(`${lock};\nALTER SCHEMA public OWNER TO ${ident(owner)}`);
  }, db);
  await run((client) =>
    client.query(
      [
        lock,
        `ALTER DATABASE ${ident(db)} OWNER TO CURRENT_USER`,
        `GRANT ${OWNER_GROUP_DATABASE_RIGHTS} ON DATABASE ${ident(db)} TO ${ident(owner)}`,
        `ALTER DATABASE ${ident(db)} CONNECTION LIMIT ${limits.database}`,
      ].join(';\n'),
    ),
  );
}
