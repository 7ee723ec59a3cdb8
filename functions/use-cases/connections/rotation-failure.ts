/**
 * A rotation whose new secret cannot be stored must not break the site: the login
 * already has the new password, the stored credential (and the running app) the old one. The
 * stored secrets are read before rotating, and a failed store gives the logins them back, then
 * answers 503; what cannot be given back is stored instead, and the reconciler repairs any
 * stored credential that still does not log in (credentials/credential-repair.ts).
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { HttpDb, Queryable } from '../../../db/client';
import { connections } from '../../../db/schema';
import { CREDENTIAL_KIND_NAMES, credentialsOf, hasCredential } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import type { ConnectionInfo } from './model';

/** The kinds whose credentials can be given their old secret back. */
const RETURNING = CREDENTIAL_KIND_NAMES.filter((k) => credentialsOf(k).secretReturns);

/** The stored secret (ciphertext) of each database connection in `rotates`, by connection id. */
export async function storedSecrets(
  db: Queryable,
  rotates: readonly ConnectionInfo[],
): Promise<Map<string, string>> {
  const ids = rotates
    .filter((r) => hasCredential(r.kind) && credentialsOf(r.kind).secretReturns)
    .map((r) => r.id);
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: connections.id, secret: connections.credentialSecretCiphertext })
    .from(connections)
    .where(inArray(connections.id, ids));
  return new Map(rows.flatMap((r) => (r.secret ? [[r.id, r.secret] as [string, string]] : [])));
}

/**
 * The read of {@link storedSecrets} for a rotate named by its site and service, not yet sent, so
 * the route sends it with its other reads: the stored secret of each database connection to
 * `resourceId` of the sites `siteWhere` selects (alias `s`). Decode with {@link storedSecretsFrom}.
 */
export function storedSecretsQuery(db: HttpDb, siteWhere: SQL, resourceId: string) {
  return db.execute(sql`
    select c.id, c.credential_secret_ciphertext as secret from connections c join sites s on s.id = c.site_id
     where ${siteWhere} and c.kind in (${sql.join(
       RETURNING.map((k) => sql`${k}`),
       sql`, `,
     )}) and c.resource_id = ${resourceId}::uuid`);
}

/** The answer of {@link storedSecretsQuery}, as {@link storedSecrets} returns it. */
export function storedSecretsFrom(answer: unknown): Map<string, string> {
  const rows = (answer as { rows: Array<{ id: string; secret: string | null }> }).rows;
  return new Map(rows.flatMap((r) => (r.secret ? [[r.id, r.secret] as [string, string]] : [])));
}

/** What a plan that rotated answers when its rows could not be written: a 4xx as is, else 503. */
export function rotationNotStored(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    'the new secret could not be stored; the credential keeps its old secret, retry later',
  );
}
