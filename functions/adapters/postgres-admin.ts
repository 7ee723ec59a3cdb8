/**
 * The PostgreSQL cluster that hosts customer databases, reached with an admin URL through the
 * Neon serverless driver (in production any Postgres behind a Neon-compatible WebSocket
 * endpoint, a Neon project included; locally the stack's own cluster through its proxy).
 */
import { Client } from '@neondatabase/serverless';
import { configureNeon } from '../../db/client';

/** Quotes an identifier for SQL (names are validated before they get here; this is defence in depth). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** Quotes a string literal for SQL. */
export const literal = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/** Role names derived from a database's physical name. */
export const rolesOf = (db: string) => ({ owner: `${db}_rw`, reader: `${db}_ro` });

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
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
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
    try {
      await this.run(async (client) => {
        await client.query(`CREATE ROLE ${ident(owner)} NOLOGIN`);
        await client.query(`CREATE ROLE ${ident(reader)} NOLOGIN`);
        await client.query(
          `CREATE ROLE ${ident(mainUser)} LOGIN PASSWORD ${literal(mainPassword)} IN ROLE ${ident(owner)}`,
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
