/**
 * What the services ask of the PostgreSQL cluster that hosts customer databases. The production
 * implementation is ClusterPostgresAdmin (postgres-admin.ts); it runs for real locally and in
 * tests against the stack's own cluster, so there is no stand-in.
 */
import type { PgLevel } from './postgres-sql';

/** A login role on the cluster, as the orphan reconciler lists them. */
export interface PgLogin {
  name: string;
  groups: string[];
  createdAt: Date | null;
}

/** Which logins a listing returns: these names, or a page of names after `after`. */
export interface LoginScope {
  names?: readonly string[];
  after?: string;
  limit?: number;
}

/** Admin work on the customer cluster: databases, their groups and per-connection logins. */
export interface PostgresAdmin {
  /** The host and port apps use to reach the cluster. */
  endpoint(publicHost?: string): { host: string; port: string };
  /** Creates the database, its `<db>_rw` and `<db>_ro` groups and its main user; all or nothing. */
  createDatabase(db: string, mainUser: string, mainPassword: string): Promise<void>;
  /** Drops the database and its roles, the given logins included. */
  dropDatabase(db: string, loginRoles: string[]): Promise<void>;
  /**
   * Creates a connection's own login `c_…` at `level` (or recreates `fixed` exactly), working
   * until `validUntil` when given (a named principal's expiry).
   */
  createLogin(
    db: string,
    level: PgLevel,
    running: boolean,
    fixed?: { name: string; password: string },
    validUntil?: Date | null,
    /** False: the role is made NOLOGIN, to be allowed later with {@link PostgresAdmin.allowLogin}. */
    login?: boolean,
  ): Promise<{ name: string; password: string }>;
  /** Lets login role `name` log in (made NOLOGIN until its sources were enforced). */
  allowLogin(name: string): Promise<void>;
  /** Moves a login to `level` and ends its open sessions. */
  setLoginLevel(db: string, name: string, level: PgLevel, running: boolean): Promise<void>;
  /** Gives login `name` of database `db` a new password (under the database's lock). */
  setLoginPassword(db: string, name: string, password: string): Promise<void>;
  /**
   * The same change left uncommitted with the database's lock held until the hold is settled
   * (postgres-password.ts): the caller stores the password, then commits.
   */
  holdLoginPassword(db: string, name: string, password: string): Promise<SecretHold>;
  /** Whether the cluster refuses `password` for login `name` on `db` (judged by logging in). */
  passwordRefused(db: string, name: string, password: string): Promise<boolean>;
  /** How many sessions login `name` has open on the cluster right now. */
  loginSessions(name: string): Promise<number>;
  /** Drops a login, handing what it owns to the database's owner group. */
  dropLogin(db: string, name: string): Promise<void>;
  /** The logins Tether created on the cluster (all, or those `scope` names), ordered by name. */
  listLogins(scope?: LoginScope): Promise<PgLogin[]>;
  /**
   * Hands database `db` (made when its owner group owned it) to the admin and restores its
   * connection limit; `<db>_rw` keeps CONNECT, TEMPORARY, CREATE and its `public` schema.
   */
  secureOwnership(db: string): Promise<void>;
  /** Stops (no new connections, sessions ended) or starts a database. */
  setRunning(db: string, running: boolean): Promise<void>;
}

/** A credential change made but not yet in effect: commit once its record is stored, else roll back. */
export interface SecretHold {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}
