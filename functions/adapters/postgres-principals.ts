/**
 * The cluster side of named principals (contract §7) that connections do not need: a login's
 * expiry, `VALID UNTIL`: from then on the server itself refuses the login.
 */
/** ` VALID UNTIL '<ISO 8601>'` for a CREATE/ALTER ROLE, or nothing without an expiry. */
export function validUntilClause(validUntil: Date | null | undefined): string {
  if (!validUntil) return '';
  if (Number.isNaN(validUntil.getTime())) throw new Error('invalid expiry');
  // toISOString() holds only digits, '-', ':', '.', 'T' and 'Z': nothing to escape.
  return ` VALID UNTIL '${validUntil.toISOString()}'`;
}
