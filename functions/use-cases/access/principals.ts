/**
 * Named principals (contract §7; docs/connections.md): an outside system's own credential on a
 * database or bucket, made by the same provisioner as a connection's (use-cases/credentials/)
 * with an expiry and a source allowlist that the systems enforce themselves. The secret is shown
 * once and kept only encrypted.
 *
 * Each write makes two metadata round trips: the route sends the reads below with the caller's
 * lookup, then the outside work runs, then one non-interactive batch records it, its guards in
 * SQL. Outside work comes first and is undone when the batch fails or its guard finds the
 * service gone, so a 503, 404 or 409 leaves nothing behind.
 */

import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { runBatch } from '../../../db/client';
import { principals } from '../../../db/schema';
import {
  allowedSources,
  type PrincipalKind,
  principalExpiry,
  principalLevel,
} from '../../domain/principal-rules';
import { credentialsOf, kindOf, sharedOnlyReason, shownSecret } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import {
  type CredentialTarget,
  createOwnCredential,
  dropCredential,
  waitsForPolicy,
} from '../credentials/connection-credential';
import { type OpenRetirement, retireAllNow, retiredStatement } from '../credentials/retirements';
import { enqueueDeliveries } from '../delivery/deliveries';
import { policyDriftStatement } from '../delivery/network-policy';
import { guard, guardFailure, uniqueViolation } from '../store/guarded-write';
import { type PrincipalSummary, principalSummary } from './access-listing';
import { principalEvent } from './principal-events';
import { type PrincipalRow, principalOf } from './principal-reads';

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

const summaryOf = (kind: PrincipalKind, row: PrincipalRow): PrincipalSummary =>
  principalSummary(kind, [
    row.id,
    row.name,
    row.level,
    row.allowedSources,
    row.expiresAt?.toISOString() ?? null,
    row.createdAt.toISOString(),
    row.credentialName,
    row.state,
  ]);

/** The shown shape of a principal with its secret. */
export function shown(
  ctx: RequestContext,
  target: CredentialTarget,
  row: PrincipalRow,
  secret: string,
): ShownPrincipal {
  const { expired: _expired, ...summary } = summaryOf(target.kind, row);
  return { ...summary, ...shownSecret(ctx, target, row.credentialName, secret) };
}

const nameTaken = (name: string) =>
  new ApiError('NAME_TAKEN', `a principal named ${name} already exists on this service`, 'name');

/** The cap on the service's live principals, with its refusal, or null without one. */
function principalCapOf(ctx: RequestContext, kind: PrincipalKind) {
  const cap = credentialsOf(kind).principalCap(ctx.config);
  if (!cap) return null;
  const word = kindOf(kind).word;
  const message = `the ${word} already holds ${cap.max} principals, the most one ${word} may (${cap.variable}); revoke one first`;
  return { max: cap.max, error: { code: 'LIMIT_REACHED' as const, message } };
}

/** The statement recording a database's network policy (its host rules) after its principals change. */
export const policyNow = (target: CredentialTarget): SQL[] =>
  credentialsOf(target.kind).networkPolicy ? [policyDriftStatement([target.resource.id])] : [];

/** Sends the policy deliveries a batch recorded; the reconciler sends any this misses. */
export async function sendPolicies(ctx: RequestContext, answer: unknown): Promise<void> {
  const ids = ((answer as { rows?: Array<{ id: string }> } | undefined)?.rows ?? []).map((r) => r.id);
  await enqueueDeliveries(ctx, ids).catch((err: Error) =>
    ctx.log.error('queueing a network policy failed; the reconciler sends it:', err.message),
  );
}

/**
 * Creates a principal on the live `target` of project `projectId` (`named`: the answer of
 * principal-reads.ts liveNamesQuery); the answer holds its secret, shown this once.
 */
export async function createPrincipal(
  ctx: RequestContext,
  projectId: string,
  target: CredentialTarget,
  input: PrincipalInput,
  live: ReadonlyArray<{ name: string }>,
): Promise<ShownPrincipal> {
  const kind = target.kind;
  const level = principalLevel(kind, input.level);
  const sources = allowedSources(input.allowed_sources);
  const expiresAt = principalExpiry(input.expires_at);
  const sharedOnly = sharedOnlyReason(target);
  if (sharedOnly) throw new ApiError('SHARED_CREDENTIAL', sharedOnly);
  if (live.some((p) => p.name === input.name)) throw nameTaken(input.name);
  const cap = principalCapOf(ctx, kind);
  if (cap && live.length >= cap.max) throw new ApiError(cap.error.code, cap.error.message);
  const limits = { expiresAt, allowedSources: sources };
  const made = await createOwnCredential(ctx, { target, level, limits });
  // Where the network policy enforces the sources, the credential cannot log in until it is acknowledged.
  const state = sources.length > 0 && waitsForPolicy(ctx, { target }) ? 'pending' : 'active';
  try {
    const id = newId();
    const ciphertext = await ctx.config.keyring.encrypt(made.secret);
    // Recorded only while the service is live: a delete that ran meanwhile leaves no row.
    const policyStatements = policyNow(target).map((q) => ctx.http.execute(q));
    const [inserted, ...rest] = await runBatch(ctx.http, [
      ctx.http.execute<{ created_at: string }>(sql`
        insert into principals (id, project_id, kind, resource_id, name, level, credential_name,
                                secret_ciphertext, allowed_sources, expires_at, state)
        select ${id}::uuid, ${projectId}::uuid, ${kind}, s.id, ${input.name}, ${level.level}, ${made.name},
               ${ciphertext}, ${JSON.stringify(sources)}::jsonb, ${expiresAt?.toISOString() ?? null}::timestamptz, ${state}
          from ${sql.raw(kindOf(kind).table)} s where s.id = ${target.resource.id}::uuid and s.deleted_at is null
        returning created_at`),
      // Two creations at once each saw room: the second to land is refused (nothing kept).
      // The policy's answer comes right after the insert's: its ids are sent below.
      ...policyStatements,
      ...(cap
        ? [
            ctx.http.execute(
              guard(
                sql`(select count(*) from principals where kind = ${kind} and resource_id = ${target.resource.id}::uuid
                       and revoked_at is null) <= ${cap.max}`,
                cap.error,
              ),
            ),
          ]
        : []),
      ...principalEvent(
        ctx,
        ctx.http,
        'principal.create',
        target,
        { id, name: input.name, level: level.level },
        sql`true`,
      ),
    ]);
    const [row] = (inserted as { rows: Array<{ created_at: string }> }).rows;
    if (!row) throw new ApiError('NOT_FOUND', `${kindOf(kind).word} not found`);
    if (policyStatements.length > 0) await sendPolicies(ctx, rest[0]);
    return shown(
      ctx,
      target,
      {
        id,
        projectId,
        kind,
        resourceId: target.resource.id,
        name: input.name,
        level: level.level,
        credentialName: made.name,
        secretCiphertext: ciphertext,
        allowedSources: sources,
        state,
        expiresAt,
        revokedAt: null,
        createdAt: new Date(row.created_at),
      },
      made.secret,
    );
  } catch (err) {
    await dropCredential(ctx, { target, name: made.name }).catch((e: Error) =>
      ctx.log.error(
        'dropping an unused principal credential failed; the reconciler removes orphans:',
        e.message,
      ),
    );
    if (uniqueViolation(err)) throw nameTaken(input.name);
    throw guardFailure(err) ?? err;
  }
}

/**
 * Revokes a principal (`rows`: the answer of principal-reads.ts principalQuery; `open`: any old secret a
 * rotate's grace still keeps): the credentials go at the outside system first (a database role's open sessions end), then the row is marked with the
 * database's network policy in one batch; false when it was revoked already.
 */
export async function revokePrincipal(
  ctx: RequestContext,
  target: CredentialTarget,
  rows: PrincipalRow[],
  open: readonly OpenRetirement[] = [],
): Promise<boolean> {
  const row = principalOf(rows);
  if (row.revokedAt) return false;
  // An old secret a rotate's grace still keeps goes too, first.
  await retireAllNow(ctx, target, open);
  await dropCredential(ctx, { target, name: row.credentialName });
  const recorded = principalEvent(ctx, ctx.http, 'principal.revoke', target, row, sql`revoked_at is null`);
  // Before the update, while the row is still live to be found.
  const answers = await runBatch(ctx.http, [
    ...recorded,
    ctx.http
      .update(principals)
      .set({ revokedAt: new Date() })
      .where(and(eq(principals.id, row.id), isNull(principals.revokedAt)))
      .returning({ id: principals.id }),
    ...policyNow(target).map((q) => ctx.http.execute(q)),
    ...retiredStatement(ctx.http, open),
  ]);
  const [marked, policy] = answers.slice(recorded.length);
  await sendPolicies(ctx, policy);
  return (marked as unknown[]).length > 0;
}
