/**
 * The cluster side of named principals (contract §7) that connections do not need: a login's
 * expiry, `VALID UNTIL`: from then on the server itself refuses the login; and a login held unable
 * to log in until its sources are enforced.
 */
import type { AdminRun } from './postgres-pins';
import { ident } from './postgres-sql';

/** ` VALID UNTIL '<ISO 8601>'` for a CREATE/ALTER ROLE, or nothing without an expiry. */
export function validUntilClause(validUntil: Date | null | undefined): string {
  if (!validUntil) return '';
  if (Number.isNaN(validUntil.getTime())) throw new Error('invalid expiry');
  // toISOString() holds only digits, '-', ':', '.', 'T' and 'Z': nothing to escape.
  return ` VALID UNTIL '${validUntil.toISOString()}'`;
}

/** Lets login role `name` (made NOLOGIN) log in. */
export async function allowRoleLogin(run: AdminRun, name: string): Promise<void> {
  await run((client) => client.query(`ALTER ROLE ${ident(name)} LOGIN`));
}
