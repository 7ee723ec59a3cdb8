/**
 * The PostgreSQL cluster that hosts customer databases, reached with an admin URL through the
 * Neon serverless driver (in production any Postgres behind a Neon-compatible WebSocket
 * endpoint, a Neon project included; locally the stack's own cluster through its proxy).
 */
import { Client } from '@neondatabase/serverless';
import { configureNeon } from '../../db/client';
import { randomLowerAlnum, randomPassword } from '../lib/ids';
import { scramVerifier } from '../lib/scram';

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
const LOGIN_COMMENT = 'tether connection role, created ';

/** The SQLSTATE of a driver error, if it has one. */
export const pgCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;

/** SQLSTATEs worth a quick retry when connecting: too many connections, cannot connect now. */
const TRANSIENT = new Set(['53300', '57P03']);

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
function levelStatements(db: string, name: string, level: PgLevel): string[] {
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
 * Serialises privilege changes on one database (its CONNECT grants, its objects' grants and
 * owners): PostgreSQL fails concurrent GRANTs on one object with "tuple concurrently updated",
 * which parallel connects to one database would meet. Sent first in a statement batch (one
 * implicit transaction), the lock is held until that batch commits.
 */
const privilegesLock = (db: string): string =>
  `SELECT pg_advisory_xact_lock(hashtextextended(${literal(`tether privileges ${db}`)}, 0))`;

/** The functions that create a large object; every role may call them unless told otherwise. */
const LARGE_OBJECT_CREATORS = ['lo_create(oid)', 'lo_creat(integer)', 'lo_from_bytea(oid, bytea)'];

/**
 * The statements that create connection login role `name` on `db` at `level`, its password
 * given as a `PASSWORD ...` clause (exported so the benchmark's baseline runs exactly these).
 */
export function createLoginStatements(
  db: string,
  name: string,
  passwordSql: string,
  level: PgLevel,
): string[] {
  return [
    `CREATE ROLE ${ident(name)} LOGIN ${passwordSql}`,
    // The creation time lets the reconciler tell an orphan from a role whose connection is still being written.
    `COMMENT ON ROLE ${ident(name)} IS ${literal(`${LOGIN_COMMENT}${new Date().toISOString()}`)}`,
    // Its own right to log in: a NOINHERIT role does not get it through <db>_rw.
    privilegesLock(db),
    `GRANT CONNECT ON DATABASE ${ident(db)} TO ${ident(name)}`,
    ...levelStatements(db, name, level),
  ];
}

/**
 * Leaves creating large objects to the shared owner: any role may create them by default, which
 * would let a read-only app write data after all. It needs the right to revoke from PUBLIC on
 * pg_catalog's functions; a managed cluster whose admin lacks it keeps PostgreSQL's default
 * (logged), rather than failing the database's creation.
 */
async function restrictLargeObjects(client: Client, owner: string): Promise<void> {
  const fns = `FUNCTION ${LARGE_OBJECT_CREATORS.join(', ')}`;
  try {
    await client.query('BEGIN');
    await client.query(`REVOKE EXECUTE ON ${fns} FROM PUBLIC`);
    await client.query(`GRANT EXECUTE ON ${fns} TO ${ident(owner)}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (pgCode(err) !== '42501') throw err;
    console.warn('large objects stay creatable by every role: the admin may not revoke on pg_catalog');
  }
}

/** Runs statements on the cluster as the admin, against the given database (default: the admin URL's). */
export class PostgresAdmin {
  constructor(
    private readonly adminUrl: string,
    private readonly wsProxy: string | undefined,
  ) {}

  /** Opens a client on `database` (or the admin database), runs `work`, always closes it. */
  async run<T>(work: (client: Client) => Promise<T>, database?: string): Promise<T> {
    configureNeon(this.wsProxy);
    const url = new URL(this.adminUrl);
    if (database) url.pathname = `/${database}`;
    // A dropped connection also emits 'error'; unheard, it would be an uncaught exception (a 500)
    // instead of the rejected query or connect the caller already handles.
    const open = () => {
      const c = new Client({ connectionString: url.toString() });
      c.on('error', () => undefined);
      return c;
    };
    let client = open();
    // A full cluster (too many clients) or one still starting is transient: retry briefly with jitter.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.connect();
        break;
      } catch (err) {
        // A client whose connect failed is finished; a retry needs a new one.
        if (!TRANSIENT.has(pgCode(err) ?? '') || attempt >= 8) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));
        client = open();
      }
    }
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The host and port apps use to reach the cluster. */
  endpoint(publicHost?: string): { host: string; port: string } {
    if (publicHost) {
      const [host, port] = publicHost.split(':');
      return { host: host as string, port: port ?? '5432' };
    }
    const url = new URL(this.adminUrl);
    return { host: url.hostname, port: url.port || '5432' };
  }

  /**
   * Creates the database, its shared owner group `<db>_rw`, its read-only group `<db>_ro` and
   * its main user; on any failure removes what it made, so nothing is left behind.
   */
  async createDatabase(db: string, mainUser: string, mainPassword: string): Promise<void> {
    const { owner, reader } = rolesOf(db);
    const mainPasswordClause = await passwordClause(mainPassword);
    try {
      await this.run(async (client) => {
        await client.query(`CREATE ROLE ${ident(owner)} NOLOGIN`);
        await client.query(`CREATE ROLE ${ident(reader)} NOLOGIN`);
        await client.query(
          `CREATE ROLE ${ident(mainUser)} LOGIN ${mainPasswordClause} IN ROLE ${ident(owner)}`,
        );
        // Objects the main user creates belong to the shared owner group, like every connect-level app.
        await client.query(`ALTER ROLE ${ident(mainUser)} SET role = ${literal(owner)}`);
        await client.query(`CREATE DATABASE ${ident(db)} OWNER ${ident(owner)}`);
        await client.query(`REVOKE ALL ON DATABASE ${ident(db)} FROM PUBLIC`);
        await client.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(db)} TO ${ident(owner)}`);
        await client.query(`GRANT CONNECT ON DATABASE ${ident(db)} TO ${ident(reader)}`);
      });
      await this.run(async (client) => {
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
    } catch (err) {
      await this.dropDatabase(db, [mainUser]).catch(() => undefined);
      throw err;
    }
  }

  /** Drops the database and its roles (plus any extra login roles named), if they exist. */
  async dropDatabase(db: string, loginRoles: string[]): Promise<void> {
    const { owner, reader } = rolesOf(db);
    await this.run(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${ident(db)} WITH (FORCE)`);
      for (const role of [...loginRoles, reader, owner]) {
        await client.query(`DROP ROLE IF EXISTS ${ident(role)}`);
      }
    });
  }

  /**
   * Creates a connection's own login role `c_` + 8 of [a-z0-9] at `level`, in one transaction
   * (a failure leaves no role). A name already taken on the cluster is drawn again.
   */
  async createLogin(
    db: string,
    level: PgLevel,
    running: boolean,
    /** Recreate exactly this login (the reconciler restoring a role that went missing). */
    fixed?: { name: string; password: string },
  ): Promise<{ name: string; password: string }> {
    if (level === 'read-only' && running) await this.grantReaderExisting(db);
    const password = fixed?.password ?? randomPassword();
    const passwordSql = await passwordClause(password);
    for (let attempt = 0; ; attempt++) {
      const name = fixed?.name ?? `c_${randomLowerAlnum(8)}`;
      try {
        // One round trip: a multi-statement simple query is one implicit transaction (all or nothing).
        const statements = createLoginStatements(db, name, passwordSql, level);
        await this.run((client) => client.query(statements.join(';\n')));
        return { name, password };
      } catch (err) {
        if (pgCode(err) !== '42710' || fixed || attempt >= 4) throw err;
      }
    }
  }

  /**
   * Moves a login role to `level` by grants only (name and password stay), then ends its open
   * sessions: a session that already acts as `<db>_rw` would otherwise keep writing.
   */
  async setLoginLevel(db: string, name: string, level: PgLevel, running: boolean): Promise<void> {
    if (level === 'read-only' && running) {
      // Anything the role came to own (a role made before NOINHERIT, a large object) passes to
      // <db>_rw first, where the reader group may read it and the app may no longer write it.
      await this.reassignOwned(db, name);
      await this.grantReaderExisting(db);
    }
    const { owner, reader } = rolesOf(db);
    const statements = [
      `REVOKE ${ident(owner)}, ${ident(reader)} FROM ${ident(name)}`,
      ...levelStatements(db, name, level),
    ];
    await this.run(async (client) => {
      await client.query(statements.join(';\n'));
      // After the commit above, so a session that reconnects at once already gets the new grants.
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [name]);
    });
  }

  /** Gives a login role a new password; open sessions stay, the old password stops working. */
  async setLoginPassword(name: string, password: string): Promise<void> {
    await this.run(async (client) => {
      const found = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
      if (found.rowCount === 0) throw new Error(`role ${name} does not exist`);
      await client.query(`ALTER ROLE ${ident(name)} ${await passwordClause(password)}`);
    });
  }

  /**
   * Drops a login role: refuses new logins, ends its sessions at once, then drops it. Anything
   * it owns passes to `<db>_rw` (so other apps keep their tables). Dropping a missing role is a no-op.
   */
  async dropLogin(db: string, name: string): Promise<void> {
    const dependent = await this.run(async (client) => {
      const found = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
      if (found.rowCount === 0) return false;
      await client.query(`ALTER ROLE ${ident(name)} NOLOGIN`);
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [name]);
      const revoke = `REVOKE CONNECT ON DATABASE ${ident(db)} FROM ${ident(name)}`;
      await client.query(`${privilegesLock(db)};\n${revoke}`).catch((err) => {
        // The database itself may be gone already; the role is dropped all the same.
        if (pgCode(err) !== '3D000') throw err;
      });
      try {
        await client.query(`DROP ROLE IF EXISTS ${ident(name)}`);
        return false;
      } catch (err) {
        if (pgCode(err) === '2BP01') return true;
        throw err;
      }
    });
    if (!dependent) return;
    await this.reassignOwned(db, name);
    await this.run((client) => client.query(`DROP OWNED BY ${ident(name)}`), db);
    // What passed to <db>_rw is readable by read-only apps like everything else it holds.
    await this.grantReaderExisting(db);
    await this.run((client) => client.query(`DROP ROLE IF EXISTS ${ident(name)}`));
  }

  /** Gives everything `name` owns in `db` to the shared owner `<db>_rw`. */
  private async reassignOwned(db: string, name: string): Promise<void> {
    await this.run(
      (client) =>
        client.query(
          `${privilegesLock(db)};\nREASSIGN OWNED BY ${ident(name)} TO ${ident(rolesOf(db).owner)}`,
        ),
      db,
    );
  }

  /** Every connection login role on the cluster, with the groups it belongs to and when it was made. */
  async listLogins(): Promise<Array<{ name: string; groups: string[]; createdAt: Date | null }>> {
    return this.run(async (client) => {
      const result = await client.query<{ name: string; groups: string[] | null; comment: string | null }>(
        `SELECT r.rolname::text AS name,
                array_agg(g.rolname::text) FILTER (WHERE g.rolname IS NOT NULL) AS groups,
                shobj_description(r.oid, 'pg_authid') AS comment
           FROM pg_roles r
           LEFT JOIN pg_auth_members m ON m.member = r.oid
           LEFT JOIN pg_roles g ON g.oid = m.roleid
          WHERE r.rolname ~ '^c_[a-z0-9]{8}$'
          GROUP BY r.oid, r.rolname`,
      );
      return result.rows.map((row) => {
        const stamp = row.comment?.startsWith(LOGIN_COMMENT)
          ? new Date(row.comment.slice(LOGIN_COMMENT.length))
          : null;
        return {
          name: row.name,
          groups: row.groups ?? [],
          createdAt: stamp && !Number.isNaN(stamp.getTime()) ? stamp : null,
        };
      });
    });
  }

  /**
   * Makes sure the reader group may read what already exists in every schema (default privileges
   * cover what `<db>_rw` creates later; this covers objects made any other way). Idempotent.
   */
  private async grantReaderExisting(db: string): Promise<void> {
    const { reader } = rolesOf(db);
    await this.run(async (client) => {
      await client.query(`${privilegesLock(db)};
DO $$
DECLARE s text;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace
            WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND left(nspname, 3) <> 'pg_'
  LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, ${literal(reader)});
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO %I', s, ${literal(reader)});
    EXECUTE format('GRANT SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', s, ${literal(reader)});
  END LOOP;
END $$`);
    }, db);
  }

  /** Stops (refuses new logins, ends sessions) or starts a database. */
  async setRunning(db: string, running: boolean): Promise<void> {
    await this.run(async (client) => {
      await client.query(`ALTER DATABASE ${ident(db)} WITH ALLOW_CONNECTIONS ${running ? 'true' : 'false'}`);
      if (!running) {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db]);
      }
    });
  }
}
