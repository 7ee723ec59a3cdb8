/**
 * Logging in to the local cluster as an app would (with `pg`), and reaching the cluster as its
 * admin through the Neon driver from Node (which needs `ws` as its WebSocket).
 */

import { Socket } from 'node:net';
import { neonConfig } from '@neondatabase/serverless';
import pg from 'pg';
import { inject } from 'vitest';
import ws from 'ws';
import { ClusterPostgresAdmin } from '../../functions/adapters/postgres-admin';

/** The Worker's own admin of customer databases (`tether_admin`, not superuser). */
export const customerAdminUrl = (): string => inject('workerEnv').CUSTOMER_DB_ADMIN_URL as string;

/** A PostgresAdmin on the shared stack's cluster as the Worker's admin role, usable from a Node test. */
export function localPostgresAdmin(adminUrl: string = customerAdminUrl()): ClusterPostgresAdmin {
  neonConfig.webSocketConstructor = ws;
  return new ClusterPostgresAdmin(adminUrl, inject('wsProxyUrl'));
}

/** A client of the local cluster as `user` on `database`, not yet connected; `stream` makes its socket. */
function appClient(database: string, user: string, password: string, stream?: () => Socket): pg.Client {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: inject('pgPort'),
    user,
    password,
    database,
    connectionTimeoutMillis: 5_000,
    ...(stream ? { stream } : {}),
  });
  // A session ended by the server emits 'error'; tests observe that through their next query.
  client.on('error', () => undefined);
  return client;
}

/** Opens a session as `user` on `database`; the caller ends it. */
export async function loginAs(database: string, user: string, password: string): Promise<pg.Client> {
  const client = appClient(database, user, password);
  await client.connect();
  return client;
}

/** Whether `user` can log in with `password` right now. */
export async function canLogin(database: string, user: string, password: string): Promise<boolean> {
  try {
    const client = await loginAs(database, user, password);
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A session to the cluster as its superuser (for inspecting roles and grants). */
export async function superuser(database = 'postgres'): Promise<pg.Client> {
  const url = new URL(inject('adminUrl'));
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** A session as the cluster's admin role (`tether_admin`, what the Worker uses), e.g. to make roles as Tether would. */
export async function clusterAdmin(database = 'postgres'): Promise<pg.Client> {
  const url = new URL(customerAdminUrl());
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The SQLSTATE a query fails with, or null when it succeeds. */
export async function sqlState(client: pg.Client, sql: string): Promise<string | null> {
  try {
    await client.query(sql);
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'unknown';
  }
}

/** Whether `user` can log in to the cluster (on 127.0.0.1) from source address `from`. */
export async function canLoginFrom(
  from: string,
  database: string,
  user: string,
  password: string,
): Promise<boolean> {
  // A socket bound to `from` before it connects: the loopback range gives several source addresses.
  class BoundSocket extends Socket {
    override connect(...args: unknown[]): this {
      const [port, host] = args as [number, string];
      return super.connect({ port, host, localAddress: from });
    }
  }
  const client = appClient(database, user, password, () => new BoundSocket());
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** The login a database URL carries: its user, its password and the database it names. */
export const loginOf = (url: string) => {
  const u = new URL(url);
  return { user: u.username, password: decodeURIComponent(u.password), db: u.pathname.slice(1) };
};

/** Whether a role of that name exists on the cluster now. */
export async function roleExists(role: string): Promise<boolean> {
  const su = await superuser();
  try {
    return (await su.query('select 1 from pg_roles where rolname = $1', [role])).rowCount === 1;
  } finally {
    await su.end();
  }
}
