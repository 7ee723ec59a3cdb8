/**
 * The PostgreSQL cluster that hosts customer databases, reached with an admin URL through the
 * Neon serverless driver (in production any Postgres behind a Neon-compatible WebSocket
 * endpoint, a Neon project included; locally the stack's own cluster through its proxy). The
 * admin needs no superuser rights: CREATEROLE, CREATEDB and pg_signal_backend (docs/deploy.md, "The
 * customer cluster's admin role").
 */
import type { Client } from '@neondatabase/serverless';
import { randomLowerAlnum, randomPassword } from '../lib/ids';
import type { LoginScope, PgLogin, PostgresAdmin } from './postgres-admin-interface';
import { createDatabaseAndGroups, secureDatabaseOwnership } from './postgres-database-setup';
import { passwordRefused } from './postgres-login-check';
import { listLoginRoles } from './postgres-logins';
import { holdPassword, setPassword } from './postgres-password';
import { releasePins } from './postgres-pins';
import { allowRoleLogin, validUntilClause } from './postgres-principals';
import { withAdminSession } from './postgres-session';
import {
  type ClusterLimits,
  createLoginStatements,
  DEFAULT_CLUSTER_LIMITS,
  grantReaderExistingSql,
  ident,
  levelStatements,
  lockSecret,
  type PgLevel,
  passwordClause,
  pgCode,
  privilegesLock,
  ROLE_EXISTS,
  rolesOf,
  TERMINATE_SESSIONS_OF_DATABASE,
  TERMINATE_SESSIONS_OF_ROLE,
  unlessGone,
} from './postgres-sql';

/** Runs statements on the cluster as the admin, against the given database (default: the admin URL's). */
export class ClusterPostgresAdmin implements PostgresAdmin {
  constructor(
    private readonly adminUrl: string,
    private readonly wsProxy: string | undefined,
    private readonly limits: ClusterLimits = DEFAULT_CLUSTER_LIMITS,
    /** A shorter lock wait for callers that must not stall on one item (the reconciler). */
    private readonly lockTimeout?: string,
  ) {}

  /** The database's lock statement, its key secret to tenants (postgres-sql.ts privilegesLock). */
  private readonly lock = (db: string): string => privilegesLock(lockSecret(this.adminUrl), db);

  /**
   * Opens an admin session on `database` (or the admin database), runs `work`, always closes it;
   * the session's `search_path` and `lock_timeout` are pinned before its first statement.
   */
  run<T>(work: (client: Client) => Promise<T>, database?: string): Promise<T> {
    return withAdminSession(this.adminUrl, this.wsProxy, work, database, this.lockTimeout);
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
   * its main user; on any failure removes what it made, so nothing is left behind. The database
   * itself is owned by the admin, so no tenant login can `ALTER DATABASE` (lift its connection
   * limit); `<db>_rw` gets CONNECT, TEMPORARY and CREATE on it and owns its `public` schema, so
   * what apps at connect make still belongs to the shared owner group.
   */
  async createDatabase(db: string, mainUser: string, mainPassword: string): Promise<void> {
    const mainPasswordClause = await passwordClause(mainPassword);
    try {
      await createDatabaseAndGroups(this.run.bind(this), this.limits, db, mainUser, mainPasswordClause);
    } catch (err) {
      await this.dropDatabase(db, [mainUser]).catch(() => undefined);
      throw err;
    }
  }

  /** Drops the database and its roles (plus any extra login roles named), if they exist. */
  async dropDatabase(db: string, loginRoles: string[]): Promise<void> {
    const { owner, reader } = rolesOf(db);
    const roles = [...loginRoles, reader, owner];
    // What other tenants made depend on these roles goes first, so the drop never stops halfway.
    await releasePins(this.run.bind(this), roles, db);
    await this.run(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${ident(db)} WITH (FORCE)`);
      for (const role of roles) await this.dropRole(client, role, db);
    });
  }

  /** Drops a role; a dependency made meanwhile in another database is removed and the drop retried. */
  private async dropRole(client: Client, role: string, db: string): Promise<void> {
    try {
      await client.query(`DROP ROLE IF EXISTS ${ident(role)}`);
    } catch (err) {
      if (pgCode(err) !== '2BP01') throw err;
      await releasePins(this.run.bind(this), [role], db);
      await client.query(`DROP ROLE IF EXISTS ${ident(role)}`);
    }
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
    /** When the login stops working (a named principal's expiry), enforced by the server. */
    validUntil?: Date | null,
    login = true,
  ): Promise<{ name: string; password: string }> {
    if (level === 'read-only' && running) await this.grantReaderExisting(db);
    const password = fixed?.password ?? randomPassword();
    const passwordSql = `${await passwordClause(password)}${validUntilClause(validUntil)}`;
    for (let attempt = 0; ; attempt++) {
      const name = fixed?.name ?? `c_${randomLowerAlnum(8)}`;
      try {
        // One round trip: a multi-statement simple query is one implicit transaction (all or nothing).
        const statements = createLoginStatements(
          db,
          this.lock(db),
          name,
          passwordSql,
          level,
          this.limits,
          login,
        );
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
      this.lock(db),
      `REVOKE ${ident(owner)}, ${ident(reader)} FROM ${ident(name)}`,
      ...levelStatements(db, name, level),
    ];
    await this.run(async (client) => {
      await client.query(statements.join(';\n'));
      // After the commit above, so a session that reconnects at once already gets the new grants.
      await client.query(TERMINATE_SESSIONS_OF_ROLE, [name]);
    });
  }

  /** Gives login `name` of `db` a new password under the database's lock; open sessions stay. */
  setLoginPassword = (db: string, name: string, pw: string) =>
    setPassword(this.run.bind(this), this.lock(db), name, pw);
  /** The same, uncommitted, the lock held until the hold is settled (postgres-password.ts). */
  holdLoginPassword = (db: string, name: string, p: string) =>
    holdPassword(this.run.bind(this), this.lock(db), name, p);

  /** Lets a login role made NOLOGIN log in (a missing role is the server's error). */
  allowLogin = (name: string) => allowRoleLogin(this.run.bind(this), name);

  /** Whether the cluster refuses `password` for `name` on `db`: a real login, ended at once. */
  passwordRefused(db: string, name: string, password: string): Promise<boolean> {
    return passwordRefused(this.adminUrl, this.wsProxy, db, name, password);
  }

  /** How many sessions login `name` has open on the cluster (a graceful rotation waits for none). */
  async loginSessions(name: string): Promise<number> {
    const found = await this.run((client) =>
      client.query<{ n: string }>(
        'SELECT pg_catalog.count(*) AS n FROM pg_catalog.pg_stat_activity a WHERE a.usename OPERATOR(pg_catalog.=) $1::pg_catalog.name',
        [name],
      ),
    );
    return Number(found.rows[0]?.n ?? 0);
  }

  /**
   * Drops a login role: refuses new logins, ends its sessions at once, then drops it. Anything
   * it owns passes to `<db>_rw` (so other apps keep their tables). Dropping a missing role is a no-op.
   */
  async dropLogin(db: string, name: string): Promise<void> {
    const dependent = await this.run(async (client) => {
      const found = await client.query(ROLE_EXISTS, [name]);
      if (found.rowCount === 0) return false;
      // Each catalog change under the lock in its own transaction: a refused drop keeps the NOLOGIN.
      await client.query(`${this.lock(db)};\nALTER ROLE ${ident(name)} NOLOGIN`);
      await client.query(TERMINATE_SESSIONS_OF_ROLE, [name]);
      const revoke = `REVOKE CONNECT ON DATABASE ${ident(db)} FROM ${ident(name)}`;
      await client.query(`${this.lock(db)};\n${revoke}`).catch(unlessGone);
      try {
        await client.query(`${this.lock(db)};\nDROP ROLE IF EXISTS ${ident(name)}`);
        return false;
      } catch (err) {
        if (pgCode(err) === '2BP01') return true;
        throw err;
      }
    });
    if (!dependent) return;
    await this.reassignOwned(db, name).catch(unlessGone);
    await this.run((client) => client.query(`DROP OWNED BY ${ident(name)}`), db).catch(unlessGone);
    await releasePins(this.run.bind(this), [name], db);
    // What passed to <db>_rw is readable by read-only apps like everything else it holds.
    await this.grantReaderExisting(db).catch(unlessGone);
    await this.run((client) => client.query(`${this.lock(db)};\nDROP ROLE IF EXISTS ${ident(name)}`));
  }

  /** Gives everything `name` owns in `db` to the shared owner `<db>_rw`. */
  private async reassignOwned(db: string, name: string): Promise<void> {
    await this.run(
      (client) =>
        client.query(`${this.lock(db)};\nREASSIGN OWNED BY ${ident(name)} TO ${ident(rolesOf(db).owner)}`),
      db,
    );
  }

  /** Every connection login role on the cluster, with the groups it belongs to and when it was made. */
  listLogins = (scope: LoginScope = {}): Promise<PgLogin[]> => listLoginRoles(this.run.bind(this), scope);

  /** Lets the reader group read what already exists in every schema of `db` (idempotent). */
  private async grantReaderExisting(db: string): Promise<void> {
    await this.run((client) => client.query(grantReaderExistingSql(db, this.lock(db))), db);
  }

  /**
   * Hands a database made when `<db>_rw` owned it to the admin and restores its connection limit
   * (a tenant owning it could lift it): first its `public` schema passes from the database's
   * owner to `<db>_rw` (so apps keep creating there), then the database itself to the admin, with
   * CONNECT, TEMPORARY and CREATE kept for `<db>_rw`. Idempotent; the database must accept
   * connections (a stopped one waits until it runs).
   */
  async secureOwnership(db: string): Promise<void> {
    await secureDatabaseOwnership(this.run.bind(this), this.lock(db), this.limits, db);
  }

  /** Stops (refuses new logins, ends sessions) or starts a database, under the database's lock. */
  async setRunning(db: string, running: boolean): Promise<void> {
    await this.run(async (client) => {
      const allow = `ALTER DATABASE ${ident(db)} WITH ALLOW_CONNECTIONS ${running}`;
      await client.query(`${this.lock(db)};\n${allow}`);
      if (!running) await client.query(TERMINATE_SESSIONS_OF_DATABASE, [db]);
    });
  }
}
