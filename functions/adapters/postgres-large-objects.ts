/** The large-object functions PostgreSQL lets every role call, which the shared owner alone keeps. */
import type { Client } from '@neondatabase/serverless';
import { log } from '../lib/logger';
import { ident, LARGE_OBJECT_CREATORS, pgCode } from './postgres-sql';

/**
 * Leaves creating large objects to the shared owner: any role may create them by default, which
 * would let a read-only app write data after all. It needs the right to revoke from PUBLIC on
 * pg_catalog's functions (the local stack gives its admin that right in template1); a managed
 * cluster whose admin lacks it keeps PostgreSQL's default (logged), rather than failing the
 * database's creation.
 */
export async function restrictLargeObjects(client: Client, owner: string): Promise<void> {
  const fns = `FUNCTION ${LARGE_OBJECT_CREATORS.join(', ')}`;
  try {
    await client.query('BEGIN');
    await client.query(`REVOKE EXECUTE ON ${fns} FROM PUBLIC`);
    await client.query(`GRANT EXECUTE ON ${fns} TO ${ident(owner)}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (pgCode(err) !== '42501') throw err;
    log.warn('large objects stay creatable by every role: the admin may not revoke on pg_catalog');
  }
}
