/**
 * A named principal's rotate (contract §7, docs/contract.md §14): a new secret shown once; the
 * old one ends at once, or with `?grace_seconds=N` works that long beside the new one.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { runBatch } from '../../../db/client';
import { principals } from '../../../db/schema';
import { principalLevel } from '../../domain/principal-rules';
import { credentialsOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import type { RequestContext } from '../../request-context';
import {
  besideCredential,
  type CredentialTarget,
  commitRotation,
  createOwnCredential,
  retireCredential,
  rotateCredential,
  waitsForPolicy,
} from '../credentials/connection-credential';
import {
  type OpenRetirement,
  retireAllNow,
  retiredStatement,
  retirementStatement,
  stillRetiring,
} from '../credentials/retirements';
import { principalEvent } from './principal-events';
import { type PrincipalRow, principalOf } from './principal-reads';
import { policyNow, type ShownPrincipal, sendPolicies, shown } from './principals';

/**
 * Gives a live principal (`rows`: the answer of principal-reads.ts principalQuery) a new secret (a bucket
 * principal a new key pair), shown once. Without `graceSeconds` the old secret ends at once, and
 * so does any old secret an earlier grace still keeps (`open`: the answer of
 * openRetirementsQuery); with it the old one works that long beside the new (docs/contract.md §14).
 */
export async function rotatePrincipal(
  ctx: RequestContext,
  target: CredentialTarget,
  rows: PrincipalRow[],
  open: readonly OpenRetirement[],
  graceSeconds = 0,
): Promise<ShownPrincipal> {
  const row = principalOf(rows);
  if (row.revokedAt) throw new ApiError('NOT_FOUND', 'principal not found');
  if (graceSeconds > 0) return rotateBeside(ctx, target, row, open, graceSeconds);
  // A leak: every old secret goes, a previous grace's first.
  await retireAllNow(ctx, target, open);
  // A stopped database still holds the role: its password changes all the same.
  const rotated = await rotateCredential(ctx, { target, name: row.credentialName });
  const secretCiphertext = await ctx.config.keyring.encrypt(rotated.secret);
  const live = and(eq(principals.id, row.id), isNull(principals.revokedAt));
  const [updated] = await runBatch(ctx.http, [
    ctx.http
      .update(principals)
      .set({ credentialName: rotated.name, secretCiphertext })
      .where(live)
      .returning(),
    ...principalEvent(ctx, ctx.http, 'principal.rotate', target, row, sql`revoked_at is null`),
    ...retiredStatement(ctx.http, open),
  ]).catch(async (err: unknown) => {
    await rotated.hold?.rollback();
    throw err;
  });
  const [saved] = updated as PrincipalRow[];
  // Not stored (revoked meanwhile: its credential went with the revoke): never in effect.
  if (!saved) await rotated.hold?.rollback();
  if (!saved) throw new ApiError('NOT_FOUND', 'principal not found');
  await commitRotation(ctx, { target, credential: rotated });
  return shown(ctx, target, saved, rotated.secret);
}

/**
 * A rotate with `?grace_seconds=N`: the new secret is made beside the old one, of the same
 * principal (a database's second login with its level, expiry and sources, `username` changes;
 * a bucket key user's second key, under the same policy), stored with the old one's retirement
 * `graceSeconds` from now; the reconciler retires it then (credentials/retirements.ts). 409 while
 * an earlier grace still keeps an old secret: never a third.
 */
async function rotateBeside(
  ctx: RequestContext,
  target: CredentialTarget,
  row: PrincipalRow,
  open: readonly OpenRetirement[],
  graceSeconds: number,
): Promise<ShownPrincipal> {
  if (open.length > 0) throw stillRetiring(open);
  const level = principalLevel(target.kind, row.level);
  const limits = { expiresAt: row.expiresAt, allowedSources: row.allowedSources };
  const made = credentialsOf(target.kind).principalRotatesBeside
    ? await besideCredential(ctx, { target, name: row.credentialName, level })
    : await createOwnCredential(ctx, { target, level, limits });
  // Where the network policy enforces the sources, the new login waits for it as a new principal does.
  const state =
    credentialsOf(target.kind).networkPolicy &&
    limits.allowedSources.length > 0 &&
    waitsForPolicy(ctx, { target })
      ? 'pending'
      : 'active';
  try {
    const secretCiphertext = await ctx.config.keyring.encrypt(made.secret);
    const stored = sql`exists (select 1 from principals where id = ${row.id}::uuid
      and credential_name = ${made.name} and revoked_at is null)`;
    const retiresAt = new Date(ctx.clock.now().getTime() + graceSeconds * 1000);
    const policyStatements = policyNow(target).map((q) => ctx.http.execute(q));
    const [updated, , ...rest] = await runBatch(ctx.http, [
      ctx.http
        .update(principals)
        .set({ credentialName: made.name, secretCiphertext, state })
        .where(and(eq(principals.id, row.id), isNull(principals.revokedAt)))
        .returning(),
      retirementStatement(
        ctx.http,
        {
          projectId: row.projectId,
          kind: target.kind,
          resourceId: row.resourceId,
          credentialName: row.credentialName,
          principalId: row.id,
          retiresAt,
        },
        stored,
      ),
      ...policyStatements,
      ...principalEvent(ctx, ctx.http, 'principal.rotate', target, row, sql`revoked_at is null`),
    ]);
    const [saved] = updated as PrincipalRow[];
    if (!saved) throw new ApiError('NOT_FOUND', 'principal not found');
    if (policyStatements.length > 0) await sendPolicies(ctx, rest[0]);
    return shown(ctx, target, saved, made.secret);
  } catch (err) {
    await retireCredential(ctx, { target, name: made.name }).catch((e: Error) =>
      ctx.log.error('removing an unused new secret failed; the reconciler removes orphans:', e.message),
    );
    throw err;
  }
}
