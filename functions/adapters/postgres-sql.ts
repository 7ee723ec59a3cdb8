/**
 * The SQL text Tether's cluster admin sends: quoting, the role layout of a customer database and
 * the statements that give a login role its level. Every function and catalog it names is
 * schema-qualified: these statements run with the admin's rights inside
 * databases whose `public` schema a tenant owns.
 */
import { createHmac } from 'node:crypto';
import { scramVerifier } from '../../db/scram';

/** Quotes an identifier for SQL (names are validated before they get here; this is defence in depth). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** Quotes a string literal for SQL. */
export const literal = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/**
 * `PASSWORD '<SCRAM verifier>'`: the server stores the verifier as given, and the password
 * itself never reaches it, so no server log (a failed statement is logged with its text) can hold it.
 */
export const passwordClause = async (password: string): Promise<string> =>
  `PASSWORD ${literal(await scramVerifier(password))}`;

/** The two database levels as the cluster sees them. */
export type PgLevel = 'read-only' | 'connect';

/** Prefix of the comment that stamps a connection role with its creation time. */
export const LOGIN_COMMENT = 'tether connection role, created ';

/** The SQLSTATE of a driver error, if it has one. */
export const pgCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;

/** Role names derived from a database's physical name. */
export const rolesOf = (db: string) => ({ owner: `${db}_rw`, reader: `${db}_ro` });

/**
 * Grants for one level. Connect acts as the shared owner: its sessions start as `<db>_rw`, so
 * what the app creates belongs to `<db>_rw` and another connect-level app can alter it. The
 * login role itself does not inherit `<db>_rw`'s rights (NOINHERIT): a session that steps back
 * with `SET ROLE NONE` can create nothing and take over nothing under its own name, so no
 * object ever escapes the shared owner or outlives a move to read-only. Read-only inherits the
 * reader group's SELECT rights and nothing else.
 */
export function levelStatements(db: string, name: string, level: PgLevel): string[] {
  const { owner, reader } = rolesOf(db);
  if (level === 'connect') {
    return [
      `ALTER ROLE ${ident(name)} NOINHERIT`,
      `GRANT ${ident(owner)} TO ${ident(name)}`,
      `ALTER ROLE ${ident(name)} SET role = ${literal(owner)}`,
    ];
  }
  return [
    `ALTER ROLE ${ident(name)} INHERIT`,
    `GRANT ${ident(reader)} TO ${ident(name)}`,
    `ALTER ROLE ${ident(name)} RESET role`,
  ];
}

/**
 * The database's lock: serialises every change Tether makes to one database and its roles (its
 * CONNECT grants and ALLOW_CONNECTIONS, its objects' grants and owners, its logins' passwords,
 * levels and drops), whether a route or the reconciler makes it. PostgreSQL refuses the later of
 * two concurrent updates of one catalog row ("tuple concurrently updated": a stop's ALTER
 * DATABASE beside a repair's GRANT CONNECT, two ALTER ROLEs of one login), so both take this
 * lock first. Sent first in a statement batch (one implicit transaction) or after BEGIN, it is
 * held until that transaction commits. Its key is an HMAC of the database's name under `secret`
 * ({@link lockSecret}): advisory locks are open to every role, so a key a tenant could compute
 * (a hash of a name it reads in pg_database) would let it hold the lock and stall Tether's work
 * on that database, its own or, where it may connect to the admin's database, another tenant's.
 */
export function privilegesLock(secret: string, db: string): string {
  const key = createHmac('sha256', secret).update(`tether privileges ${db}`).digest().readBigInt64BE(0);
  return `SELECT pg_catalog.pg_advisory_xact_lock(${literal(key.toString())}::pg_catalog.int8)`;
}

/** The secret the databases' lock keys derive from: the admin URL's password (no tenant knows it), else the URL. */
export function lockSecret(adminUrl: string): string {
  const password = new URL(adminUrl).password;
  return password ? decodeURIComponent(password) : adminUrl;
}

/** The functions that create a large object; every role may call them unless told otherwise. */
export const LARGE_OBJECT_CREATORS = [
  'pg_catalog.lo_create(pg_catalog.oid)',
  'pg_catalog.lo_creat(pg_catalog.int4)',
  'pg_catalog.lo_from_bytea(pg_catalog.oid, pg_catalog.bytea)',
];

/**
 * The statements that create connection login role `name` on `db` at `level`, its password
 * given as a `PASSWORD ...` clause (exported so the benchmark's baseline runs exactly these).
 */
export function createLoginStatements(
  db: string,
  /** The database's lock statement ({@link privilegesLock}). */
  lock: string,
  name: string,
  passwordSql: string,
  level: PgLevel,
  limits: ClusterLimits,
  /** False: made unable to log in until allowed (a principal whose sources are not enforced yet). */
  login = true,
): string[] {
  return [
    `CREATE ROLE ${ident(name)} ${login ? 'LOGIN' : 'NOLOGIN'} ${passwordSql} CONNECTION LIMIT ${limits.role}`,
    ...roleSettings(name, limits),
    // The creation time lets the reconciler tell an orphan from a role whose connection is still being written.
    `COMMENT ON ROLE ${ident(name)} IS ${literal(`${LOGIN_COMMENT}${new Date().toISOString()}`)}`,
    ...levelStatements(db, name, level),
    // Its own right to log in: a NOINHERIT role does not get it through <db>_rw. Last, so the
    // database's lock (held until the batch commits) covers only this grant: parallel connects
    // to one database wait on each other for it alone, not for their role's other statements.
    lock,
    `GRANT CONNECT ON DATABASE ${ident(db)} TO ${ident(name)}`,
  ];
}

/** What one tenant may take of the shared cluster (docs/deploy.md, "The shared cluster's limits"). */
export interface ClusterLimits {
  /** CONNECTION LIMIT of each login role. */
  role: number;
  /** CONNECTION LIMIT of each database. */
  database: number;
  /** temp_file_limit of each login role, or null to leave the cluster's (the admin needs SET on it). */
  tempFileLimit: string | null;
}

/** The limits used when a deployment configures none. */
export const DEFAULT_CLUSTER_LIMITS: ClusterLimits = { role: 20, database: 60, tempFileLimit: null };

/** How long a tenant session may sit idle inside a transaction, holding its locks, before it is ended. */
const IDLE_IN_TRANSACTION = '5min';

/** The settings every login role Tether makes starts its sessions with. */
export function roleSettings(name: string, limits: ClusterLimits): string[] {
  return [
    `ALTER ROLE ${ident(name)} SET idle_in_transaction_session_timeout = ${literal(IDLE_IN_TRANSACTION)}`,
    ...(limits.tempFileLimit === null
      ? []
      : [`ALTER ROLE ${ident(name)} SET temp_file_limit = ${literal(limits.tempFileLimit)}`]),
  ];
}

/**
 * Makes sure the reader group may read what already exists in every schema (default privileges
 * cover what `<db>_rw` creates later; this covers objects made any other way). Idempotent.
 */
export function grantReaderExistingSql(db: string, lock: string): string {
  const reader = literal(rolesOf(db).reader);
  return `${lock};
DO $$
DECLARE s pg_catalog.text;
BEGIN
  FOR s IN SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_namespace n
            WHERE NOT (n.nspname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'information_schema']::pg_catalog.text[]))
              AND NOT (n.nspname::pg_catalog.text OPERATOR(pg_catalog.^@) 'pg_'::pg_catalog.text)
  LOOP
    EXECUTE pg_catalog.format('GRANT USAGE ON SCHEMA %I TO %I', s, ${reader}::pg_catalog.text);
    EXECUTE pg_catalog.format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO %I', s, ${reader}::pg_catalog.text);
    EXECUTE pg_catalog.format('GRANT SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', s, ${reader}::pg_catalog.text);
  END LOOP;
END $$`;
}

/**
 * Ends the client sessions on database `$1` (a parameter): a stop. Not the platform's own
 * processes (autovacuum, a superuser's session): an admin that is not a superuser may not signal
 * them, and one refusal made the whole stop fail.
 */
export const TERMINATE_SESSIONS_OF_DATABASE = `SELECT pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a
 WHERE a.datname OPERATOR(pg_catalog.=) $1::pg_catalog.name
   AND a.backend_type OPERATOR(pg_catalog.=) 'client backend'
   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) a.usesysid AND r.rolsuper)`;

/** The statements that end every session of login role `$1` (a parameter). */
export const TERMINATE_SESSIONS_OF_ROLE =
  'SELECT pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a WHERE a.usename OPERATOR(pg_catalog.=) $1::pg_catalog.name';

/** Lets a statement in a database that is gone already pass (its roles are dropped all the same). */
export const unlessGone = (err: unknown): void => {
  if (pgCode(err) !== '3D000') throw err;
};

/** Whether a role of the given name exists on the cluster. */
export const ROLE_EXISTS =
  'SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) $1::pg_catalog.name';
