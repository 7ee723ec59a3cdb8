/**
 * A site's delivery target (contract §11): set after one read call at the platform, stored with
 * its secret encrypted, answered without it, and used by the consumer to send the site's live
 * patches. Setting a target records one `sync` delivery carrying the site's whole effective set.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx, HttpDb } from '../../../db/client';
import { deliveries, sites, siteTargets } from '../../../db/schema';
import type { Receivers } from '../../adapters';
import {
  type DeliverOutcome,
  type DeliveryTarget,
  type StoredTarget,
  TARGETS,
  TargetFieldRefused,
  type TargetPatch,
  TargetRefused,
  TargetUnreachable,
  targetOf,
} from '../../adapters/targets';
import type { Config } from '../../config';
import { siteRef } from '../../domain/names';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { validationError } from '../../lib/openapi';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import { projectIdOf } from '../caller/api-caller';

type TargetRow = typeof siteTargets.$inferSelect;

/** A PUT body of any target, discriminated by its `type` (so a misspelt or misplaced field is refused, and typed). */
export const TARGET_INPUT = z.discriminatedUnion(
  'type',
  TARGETS.map((target) => target.input) as unknown as [
    (typeof TARGETS)[0]['input'],
    ...(typeof TARGETS)[number]['input'][],
  ],
);

/** The types a target may have, in the registry's order. */
export const TARGET_TYPES = TARGETS.map((t) => t.type) as [string, ...string[]];

/** The adapter of a PUT body's `type` and the body as that kind's schema parses it; 400 otherwise. */
export function parseTarget(body: { type: string }): { adapter: DeliveryTarget; input: { type: string } } {
  const adapter = targetOf(body.type);
  if (!adapter) throw new ApiError('VALIDATION_FAILED', 'type: unknown target type', 'type');
  const parsed = adapter.input.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return { adapter, input: parsed.data };
}

/** Site `siteId` (its id or slug) of project `projectRef` (its id or slug), as a condition. */
function siteMatch(projectRef: string, siteId: string) {
  const ref = siteRef(siteId);
  const match = ref === null ? sql`false` : 'id' in ref ? eq(sites.id, ref.id) : eq(sites.slug, ref.slug);
  return and(match, eq(sites.projectId, projectIdOf(projectRef)));
}

/** Site `siteId` of project `projectRef` (ids or slug/ref) with its target, not yet sent; no row: no site. */
export function siteWithTarget(db: HttpDb, projectRef: string, siteId: string) {
  return db
    .select({ site: sites, target: siteTargets })
    .from(sites)
    .leftJoin(siteTargets, eq(siteTargets.siteId, sites.id))
    .where(siteMatch(projectRef, siteId));
}

/** What GET …/target answers for a stored target, or `{type:"default"}` without one. */
export function describeTarget(row: TargetRow | null): Record<string, unknown> {
  const adapter = row && targetOf(row.type);
  if (!row || !adapter) return { type: 'default' };
  return { type: row.type, ...adapter.describe(row.config) };
}

/** The answer to a target that could not be checked: 400 TARGET_REFUSED or 503, nothing stored. */
function checkFailure(err: unknown): ApiError {
  if (err instanceof TargetFieldRefused)
    return new ApiError('VALIDATION_FAILED', `${err.field}: ${err.message}`, err.field);
  if (err instanceof TargetRefused) return new ApiError('TARGET_REFUSED', err.message);
  if (err instanceof TargetUnreachable) return new ApiError('SERVICE_UNAVAILABLE', err.message);
  return new ApiError('SERVICE_UNAVAILABLE', 'the platform could not be checked');
}

/**
 * Checks `input` (a PUT body of `adapter`'s kind) with one read call at the platform, then in one
 * batch stores it (replacing any target before), supersedes the site's patches still pending
 * (the sync carries their names) and records the `sync` delivery. Returns the sync's id and what
 * GET answers.
 */
export async function setSiteTarget(
  ctx: RequestContext,
  {
    site,
    adapter,
    input,
  }: {
    site: { id: string; projectId: string; slug: string };
    adapter: DeliveryTarget;
    input: { type: string };
  },
): Promise<{ syncId: string; described: Record<string, unknown> }> {
  const db = ctx.http;
  const config = ctx.config;
  const receivers = ctx.receivers;
  const stored = adapter.split(input);
  await adapter.check(receivers.platforms, stored).catch((err: unknown) => {
    throw checkFailure(err);
  });
  const secretCiphertext = await config.keyring.encrypt(stored.secret);
  const syncId = newId();
  const row = {
    siteId: site.id,
    projectId: site.projectId,
    type: adapter.type,
    config: stored.config,
    secretCiphertext,
  };
  await db.batch([
    db
      .insert(siteTargets)
      .values(row)
      .onConflictDoUpdate({
        target: siteTargets.siteId,
        set: { type: row.type, config: row.config, secretCiphertext, createdAt: sql`now()` },
      }),
    db
      .update(deliveries)
      .set({ status: 'superseded', claimedUntil: null, lastError: 'the target changed: a sync follows' })
      .where(
        and(
          eq(deliveries.kind, 'runtime_patch'),
          eq(deliveries.targetId, site.id),
          sql`${deliveries.status} in ('pending', 'dead')`,
        ),
      ),
    // A redeploy or restart still following an earlier patch is the old target's: the sync's own replaces it.
    db
      .update(deliveries)
      .set({ confirmState: null })
      .where(
        and(
          eq(deliveries.kind, 'runtime_patch'),
          eq(deliveries.targetId, site.id),
          sql`${deliveries.confirmState} is not null`,
        ),
      ),
    db.insert(deliveries).values({
      id: syncId,
      kind: 'runtime_patch',
      projectId: site.projectId,
      targetId: site.id,
      reason: 'sync',
    }),
    activityQuery(db, ctx.activity, {
      action: 'target.set',
      target: { type: 'site', id: site.id, name: site.slug },
      projectId: site.projectId,
      siteId: site.id,
      details: { type: adapter.type, ...publicDetails(adapter.describe(stored.config)) },
    }),
  ]);
  return { syncId, described: { type: adapter.type, ...adapter.describe(stored.config) } };
}

/** The plain fields of a target's description, for the Activity record. */
function publicDetails(described: Record<string, unknown>): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = {};
  for (const [key, value] of Object.entries(described)) {
    if (typeof value === 'string' || Array.isArray(value)) out[key] = value as string | string[];
  }
  return out;
}

/** Removes the site's target (its patches go to RUNTIME_PATCH_URL again, or stay pending). */
export async function removeSiteTarget(
  ctx: RequestContext,
  { site }: { site: { id: string; projectId: string; slug: string } },
): Promise<void> {
  const db = ctx.http;
  await db.batch([
    // Recorded only when there was a target to remove (placed first, it sees the row).
    activityQuery(
      db,
      ctx.activity,
      {
        action: 'target.remove',
        target: { type: 'site', id: site.id, name: site.slug },
        projectId: site.projectId,
        siteId: site.id,
      },
      sql`exists (select 1 from site_targets where site_id = ${site.id}::uuid)`,
    ),
    db.delete(siteTargets).where(eq(siteTargets.siteId, site.id)),
  ]);
}

/** A site's stored target with its adapter and its secret decrypted; null without one (or of a type no longer known). */
export async function siteTarget(
  db: DbOrTx,
  config: Config,
  siteId: string,
): Promise<{ adapter: DeliveryTarget; stored: StoredTarget<Record<string, unknown>> } | null> {
  const [row] = await db.select().from(siteTargets).where(eq(siteTargets.siteId, siteId));
  const adapter = row && targetOf(row.type);
  if (!row || !adapter) return null;
  return {
    adapter,
    stored: { config: row.config, secret: await config.keyring.decrypt(row.secretCiphertext) },
  };
}

/** How a site's live patches are sent now: the target's type (`default` for RUNTIME_PATCH_URL) and the send. */
export interface SiteSender {
  type: string;
  send(patch: TargetPatch): Promise<DeliverOutcome>;
}

/**
 * How the site's live patches are sent now: its target's adapter, else the platform-wide
 * receiver, else null (they stay pending).
 */
export async function siteSender(
  db: DbOrTx,
  config: Config,
  receivers: Receivers,
  siteId: string,
): Promise<SiteSender | null> {
  const target = await siteTarget(db, config, siteId);
  if (target) {
    const { adapter, stored } = target;
    return { type: adapter.type, send: (patch) => adapter.deliver(receivers.platforms, stored, patch) };
  }
  const fallback = receivers.runtimePatch;
  if (!fallback) return null;
  // The platform-wide receiver answers 2xx once the runtime applied the patch (docs/contract.md §14).
  return {
    type: 'default',
    async send(patch) {
      await fallback.send(patch.body);
      return { live: true };
    },
  };
}
