/**
 * Direct PostgreSQL work for the issue-4 baselines: the same statements the Worker's connect
 * runs (functions/adapters/postgres-admin.ts createLogin at level connect), timed with a plain
 * `pg` client, plus read-only queries the checks need.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import {
  createLoginStatements,
  DEFAULT_CLUSTER_LIMITS,
  ident,
  lockSecret,
  passwordClause,
  privilegesLock,
} from '../../functions/adapters/postgres-sql';

/** Opens a client on `url`, runs `work`, always closes it. */
export async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The physical name of a database record (its roles are `<physical>_rw` and `<physical>_ro`). */
export async function physicalNameOf(metadataUrl: string, databaseId: string): Promise<string> {
  const res = await withPg(metadataUrl, (c) =>
    c.query<{ physical_name: string }>('SELECT physical_name FROM databases WHERE id = $1', [databaseId]),
  );
  const name = res.rows[0]?.physical_name;
  if (!name) throw new Error(`database ${databaseId} has no metadata row`);
  return name;
}

/** Own-credential connections of a database, and how many distinct roles they name that exist on the cluster. */
export async function rolesOfDatabase(
  metadataUrl: string,
  databaseId: string,
): Promise<{ connections: number; distinctExisting: number }> {
  const res = await withPg(metadataUrl, (c) =>
    c.query<{ connections: string; distinct_existing: string }>(
      `SELECT count(*) AS connections,
              count(DISTINCT r.rolname) AS distinct_existing
         FROM connections c
         LEFT JOIN pg_roles r ON r.rolname = c.credential_name
        WHERE c.kind = 'database' AND c.resource_id = $1 AND c.credential_mode = 'own'`,
      [databaseId],
    ),
  );
  const row = res.rows[0];
  return {
    connections: Number(row?.connections ?? 0),
    distinctExisting: Number(row?.distinct_existing ?? 0),
  };
}

/** Connection login roles (`c_` + 8) that are members of `group` on the cluster. */
export async function loginRolesInGroup(adminUrl: string, group: string): Promise<number> {
  const res = await withPg(adminUrl, (c) =>
    c.query<{ n: string }>(
      `SELECT count(*) AS n
         FROM pg_auth_members m
         JOIN pg_roles g ON g.oid = m.roleid
         JOIN pg_roles r ON r.oid = m.member
        WHERE g.rolname = $1 AND r.rolname ~ '^c_[a-z0-9]{8}$'`,
      [group],
    ),
  );
  return Number(res.rows[0]?.n ?? 0);
}

/** Creates connect-level login `name` on `db` in one transaction, with the statements the Worker runs. */
async function createConnectLogin(
  client: pg.Client,
  adminUrl: string,
  db: string,
  name: string,
): Promise<void> {
  const password = await passwordClause(randomBytes(24).toString('base64url'));
  const statements = createLoginStatements(
    db,
    privilegesLock(lockSecret(adminUrl), db),
    name,
    password,
    'connect',
    DEFAULT_CLUSTER_LIMITS,
  );
  await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
}

/**
 * The wall time of `count` logins made at once, each on its own new connection with the
 * Worker's connect-level statements (as {@link timeDirectLogins}): what 100 parallel connects
 * to one database cannot beat. The roles are dropped afterwards.
 */
export async function timeParallelDirectLogins(adminUrl: string, db: string, count: number): Promise<number> {
  const names = Array.from({ length: count }, () => `bench_${randomBytes(5).toString('hex')}`);
  try {
    const t0 = performance.now();
    await Promise.all(
      names.map((name) => withPg(adminUrl, (client) => createConnectLogin(client, adminUrl, db, name))),
    );
    return performance.now() - t0;
  } finally {
    await dropRoles(adminUrl, names);
  }
}

/** Drops the `bench_` roles of `names` that exist. */
async function dropRoles(adminUrl: string, names: readonly string[]): Promise<void> {
  await withPg(adminUrl, async (c) => {
    const made = await c.query<{ name: string }>(
      'SELECT rolname::text AS name FROM pg_roles WHERE rolname = ANY($1)',
      [names],
    );
    // DROP OWNED first: it revokes the role's CONNECT on the database, which would block the drop.
    for (const { name } of made.rows) await c.query(`DROP OWNED BY ${ident(name)}; DROP ROLE ${ident(name)}`);
  });
}

/**
 * Times `count` logins made with the Worker's own connect-level statements (the adapter's
 * `createLoginStatements`, its password a SCRAM verifier computed in the timed section as the
 * Worker computes it), one after another, in ms each. `fresh`: a new connection per login (as
 * the Worker opens one), else one open connection. The roles (named `bench_…`, outside the
 * reconciler's `c_` pattern) are dropped afterwards.
 */
export async function timeDirectLogins(
  adminUrl: string,
  db: string,
  count: number,
  fresh: boolean,
): Promise<number[]> {
  const names = Array.from({ length: count }, () => `bench_${randomBytes(5).toString('hex')}`);
  const times: number[] = [];
  const runOne = async (client: pg.Client, name: string): Promise<void> => {
    await createConnectLogin(client, adminUrl, db, name);
  };
  try {
    if (fresh) {
      for (const name of names) {
        const t0 = performance.now();
        await withPg(adminUrl, (c) => runOne(c, name));
        times.push(performance.now() - t0);
      }
    } else {
      await withPg(adminUrl, async (c) => {
        for (const name of names) {
          const t0 = performance.now();
          await runOne(c, name);
          times.push(performance.now() - t0);
        }
      });
    }
  } finally {
    await dropRoles(adminUrl, names);
  }
  return times;
}
