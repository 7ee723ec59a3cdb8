/**
 * Named principals (specification rule 9, CONTRACT §7): an outside system's own credential on a
 * database or bucket, made by the same provisioner as a connection's (services/credentials.ts)
 * with an expiry and a source allowlist that the systems enforce themselves. The secret is shown
 * once and kept only encrypted. Outside work comes first and is undone on any later failure,
 * so a 503 or 409 leaves nothing behind.
 */

import { and, eq, isNull, sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from '../../../db/client';
import { principals } from '../../../db/schema';
import {
  allowedSources,
  type PrincipalKind,
  principalExpiry,
  principalLevel,
  requireNoMongoAllowlist,
} from '../../domain/principal-rules';
import { ApiError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import { log } from '../../lib/logger';
import {
  type CredentialTarget,
  createOwnCredential,
  dropCredential,
  rotateCredential,
} from '../credentials/connection-credential';
import { requestPolicies } from '../delivery/network-policy';
import { type AccessDeps, liveTarget } from './deps';
import { databaseUrls } from './endpoints';
import { livePrincipalsJson, type PrincipalSummary, principalSummary } from './listing';

/** A principal request, as the API takes it. */
export interface PrincipalInput {
  name: string;
  level: string;
  allowed_sources?: string[];
  expires_at?: string | null;
}

/** The created (and rotated) shape: the summary without `expired`, plus the secret, shown once. */
export type ShownPrincipal = Omit<PrincipalSummary, 'expired'> &
  (
    | { username: string; password: string; url: string }
    | { access_key_id: string; secret_access_key: string }
  );

type PrincipalRow = typeof principals.$inferSelect;

const summaryOf = (kind: PrincipalKind, row: PrincipalRow): PrincipalSummary =>
  principalSummary(kind, [
    row.id,
    row.name,
    row.level,
    row.allowedSources,
    row.expiresAt?.toISOString() ?? null,
    row.createdAt.toISOString(),
    row.credentialName,
  ]);

function shown(
  deps: AccessDeps,
  target: CredentialTarget,
  row: PrincipalRow,
  secret: string,
): ShownPrincipal {
  const { expired: _expired, ...summary } = summaryOf(target.kind, row);
  if (target.kind === 'bucket')
    return { ...summary, access_key_id: row.credentialName, secret_access_key: secret };
  const { external_url } = databaseUrls(
    deps.config,
    deps.adapters,
    target.resource,
    row.credentialName,
    secret,
  );
  return { ...summary, username: row.credentialName, password: secret, url: external_url };
}

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  ((err as { code?: string }).code === UNIQUE_VIOLATION ||
    (err as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION);

const nameTaken = (name: string) =>
  new ApiError('NAME_TAKEN', `a principal named ${name} already exists on this service`, 'name');

async function liveNamed(db: Queryable, kind: PrincipalKind, resourceId: string, name: string) {
  const [row] = await db
    .select({ id: principals.id })
    .from(principals)
    .where(
      and(
        eq(principals.kind, kind),
        eq(principals.resourceId, resourceId),
        eq(principals.name, name),
        isNull(principals.revokedAt),
      ),
    );
  return row;
}

/** After a database's principals change: its network policy (host rules) goes out at once. */
async function policyNow(deps: AccessDeps, target: CredentialTarget): Promise<void> {
  if (target.kind !== 'database') return;
  await requestPolicies(deps.db, deps.queue, [target.resource.id]).catch((err: Error) =>
    log.error('recording a network policy failed; the reconciler records it:', err.message),
  );
}

/** Creates a principal on the service; the answer holds its secret, shown this once. */
export async function createPrincipal(
  deps: AccessDeps,
  projectId: string,
  kind: PrincipalKind,
  serviceId: string,
  input: PrincipalInput,
): Promise<ShownPrincipal> {
  const target = await liveTarget(deps.db, projectId, kind, serviceId);
  const level = principalLevel(kind, input.level);
  const sources = allowedSources(input.allowed_sources);
  const expiresAt = principalExpiry(input.expires_at);
  if (target.kind === 'database' && target.resource.engine === 'mongodb' && !target.resource.replicaSet)
    throw new ApiError(
      'SHARED_CREDENTIAL',
      'a standalone MongoDB has only its shared user; use the database credentials instead',
    );
  if (target.kind === 'database' && target.resource.engine === 'mongodb') requireNoMongoAllowlist(sources);
  if (await liveNamed(deps.db, kind, target.resource.id, input.name)) throw nameTaken(input.name);
  const made = await createOwnCredential(deps.adapters, target, level, {
    expiresAt,
    allowedSources: sources,
  });
  try {
    const [row] = await deps.db
      .insert(principals)
      .values({
        id: newId(),
        projectId,
        kind,
        resourceId: target.resource.id,
        name: input.name,
        level: level.level,
        credentialName: made.name,
        secretCiphertext: await deps.config.keyring.encrypt(made.secret),
        allowedSources: sources,
        expiresAt,
      })
      .returning();
    await policyNow(deps, target);
    return shown(deps, target, row as PrincipalRow, made.secret);
  } catch (err) {
    await dropCredential(deps.adapters, deps.config, target, made.name).catch((e: Error) =>
      log.error('dropping an unused principal credential failed; the reconciler removes orphans:', e.message),
    );
    if (isUniqueViolation(err)) throw nameTaken(input.name);
    throw err;
  }
}

/** The service's live principals, never a secret: the service and its principals in one statement. */
export async function listPrincipals(
  deps: AccessDeps,
  projectId: string,
  kind: PrincipalKind,
  serviceId: string,
): Promise<PrincipalSummary[]> {
  const id = isUuid(serviceId) ? serviceId.toLowerCase() : null;
  const table = sql.raw(kind === 'database' ? 'databases' : 'buckets');
  const [row] = await rowsOf<{ found: boolean; list: Parameters<typeof principalSummary>[1][] | null }>(
    deps.reads,
    sql`select exists (select 1 from ${table} s where s.id = ${id}::uuid and s.project_id = ${projectId}::uuid
                         and s.deleted_at is null) as found,
               ${livePrincipalsJson(kind, sql`${id}::uuid`)} as list`,
  );
  if (!row?.found) throw new ApiError('NOT_FOUND', `${kind} not found`);
  const now = Date.now();
  return (row.list ?? []).map((t) => principalSummary(kind, t, now));
}

/** The principal `principalId` of the service, revoked ones included; 404 if it never existed. */
async function principalOf(
  deps: AccessDeps,
  target: CredentialTarget,
  principalId: string,
): Promise<PrincipalRow> {
  const [row] = isUuid(principalId)
    ? await deps.db
        .select()
        .from(principals)
        .where(
          and(
            eq(principals.id, principalId.toLowerCase()),
            eq(principals.kind, target.kind),
            eq(principals.resourceId, target.resource.id),
          ),
        )
    : [];
  if (!row) throw new ApiError('NOT_FOUND', 'principal not found');
  return row;
}

/** Gives a live principal a new secret (a bucket principal a new key pair); shown once. */
export async function rotatePrincipal(
  deps: AccessDeps,
  projectId: string,
  kind: PrincipalKind,
  serviceId: string,
  principalId: string,
): Promise<ShownPrincipal> {
  const target = await liveTarget(deps.db, projectId, kind, serviceId);
  const row = await principalOf(deps, target, principalId);
  if (row.revokedAt) throw new ApiError('NOT_FOUND', 'principal not found');
  // A stopped database still holds the role: its password changes all the same.
  const rotated = await rotateCredential(deps.adapters, deps.config, target, row.credentialName);
  const [saved] = await deps.db
    .update(principals)
    .set({
      credentialName: rotated.name,
      secretCiphertext: await deps.config.keyring.encrypt(rotated.secret),
    })
    .where(eq(principals.id, row.id))
    .returning();
  return shown(deps, target, saved as PrincipalRow, rotated.secret);
}

/**
 * Revokes a principal: the credential goes at the outside system first (a database role's open
 * sessions end), then the row is marked; false when it was revoked already.
 */
export async function revokePrincipal(
  deps: AccessDeps,
  projectId: string,
  kind: PrincipalKind,
  serviceId: string,
  principalId: string,
): Promise<boolean> {
  const target = await liveTarget(deps.db, projectId, kind, serviceId);
  const row = await principalOf(deps, target, principalId);
  if (row.revokedAt) return false;
  await dropCredential(deps.adapters, deps.config, target, row.credentialName);
  const marked = await deps.db
    .update(principals)
    .set({ revokedAt: new Date() })
    .where(and(eq(principals.id, row.id), isNull(principals.revokedAt)))
    .returning({ id: principals.id });
  await policyNow(deps, target);
  return marked.length > 0;
}
