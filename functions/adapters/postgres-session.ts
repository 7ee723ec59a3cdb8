/**
 * Opening an admin session on the customer cluster. Every session pins its settings in the
 * startup packet, before its first statement: the admin runs statements inside databases whose
 * `public` schema a tenant owns, so an unpinned `search_path` would let a tenant's function of
 * the same name run with the admin's rights (CVE-2018-1058), and a lock a tenant holds could make
 * a request wait without end. Startup options outrank anything the database's owner can set with
 * `ALTER DATABASE ... SET`.
 */
import type { Client } from '@neondatabase/serverless';
import { configureNeon, ScramClient } from '../../db/client';
import { pgCode } from './postgres-sql';

/** Longest a statement of an admin session waits for a lock before it fails (SQLSTATE 55P03). */
export const ADMIN_LOCK_TIMEOUT = '4s';

/** The settings an admin session starts with (a lock timeout of `lockTimeout`), as the startup packet's `options`. */
export const adminSessionOptions = (lockTimeout: string = ADMIN_LOCK_TIMEOUT): string =>
  [
    '-c search_path=pg_catalog,pg_temp',
    `-c lock_timeout=${lockTimeout}`,
    // Role settings a tenant could have stored for the database must not change who acts.
    '-c role=none',
  ].join(' ');

/** The settings every admin session starts with, as the startup packet's `options`. */
export const ADMIN_SESSION_OPTIONS = adminSessionOptions();

/** SQLSTATEs worth a quick retry when connecting: too many connections, cannot connect now. */
const TRANSIENT = new Set(['53300', '57P03']);

/**
 * Opens a client as the admin of `adminUrl` on `database` (default: the URL's own), runs `work`,
 * always closes it. A full cluster or one still starting is retried briefly with jitter.
 */
export async function withAdminSession<T>(
  adminUrl: string,
  wsProxy: string | undefined,
  work: (client: Client) => Promise<T>,
  database?: string,
  lockTimeout?: string,
): Promise<T> {
  configureNeon(wsProxy);
  const url = new URL(adminUrl);
  if (database) url.pathname = `/${database}`;
  // A dropped connection also emits 'error'; unheard, it would be an uncaught exception (a 500)
  // instead of the rejected query or connect the caller already handles.
  const open = () => {
    const c = new ScramClient({
      connectionString: url.toString(),
      options: adminSessionOptions(lockTimeout),
    });
    c.on('error', () => undefined);
    return c;
  };
  let client = open();
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
