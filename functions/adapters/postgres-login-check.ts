/**
 * Whether the cluster accepts a login's password, judged by logging in as it, as its app would:
 * PostgreSQL keeps only a salted verifier, which the admin (no superuser) may not read, so a
 * real login is the only comparison there is. The session ends at once, before any statement.
 */
import { Client } from '@neondatabase/serverless';
import { configureNeon } from '../../db/client';
import { pgCode } from './postgres-sql';

/** SQLSTATE of a refused password (invalid_password). */
const INVALID_PASSWORD = '28P01';

/**
 * True when the cluster refuses `password` for `user` on `database` (SQLSTATE 28P01); false when
 * it accepts it, including when it refuses the session afterwards for another reason (a stopped
 * database, 55000; no CONNECT right, 42501). A failure without a SQLSTATE (the cluster
 * unreachable) is thrown.
 */
export async function passwordRefused(
  adminUrl: string,
  wsProxy: string | undefined,
  database: string,
  user: string,
  password: string,
): Promise<boolean> {
  configureNeon(wsProxy);
  const url = new URL(adminUrl);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    // A client whose connect failed is finished already (nothing to end).
    const code = pgCode(err);
    if (code === undefined) throw err;
    return code === INVALID_PASSWORD;
  }
  await client.end().catch(() => undefined);
  return false;
}
