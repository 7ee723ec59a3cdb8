/**
 * Moving connections served by a service's shared credential onto their own: a database that
 * was stopped when the connection was made and now runs (the reconciler), and the connections
 * of legacy sites, made before per-connection credentials existed (queue message
 * `switch-credentials`, sent at their next deploy or when any connection on the project
 * changes). The own credential is made first; the connection row, the legacy flag and a live
 * patch (reason `credential`) are written in one transaction; the app is never restarted.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { connections, sites } from '../../../db/schema';
import { type Level, storedLevel } from '../../domain/levels';
import { CREDENTIAL_KIND_NAMES, hasCredential, isCredentialLevel } from '../../kinds/registry';
import type { JobContext } from '../../request-context';
import { notBackingOff, runItems } from '../background/items';
import { enqueueDeliveries, recordPatches } from '../delivery/deliveries';
import { deriveSiteEnv } from '../site-env/derive';
import { loadTargetAnyState } from './cleanup';
import {
  type CredentialTarget,
  createConnectionCredential,
  dropCredential,
  usesSharedCredential,
} from './connection-credential';
import { connectionRepairEvent, type RepairKind } from './repair-events';
import { rotateUnusedReaders } from './shared-reader';

/** The reconciler's name for switches in reconcile_failures. */
const SWITCH_STEP = 'switch-shared-credentials';

/** Names whose values differ between two variable maps. */
function changedNames(
  before: Record<string, string>,
  after: Record<string, string>,
): { set: string[]; unset: string[] } {
  const set = Object.keys(after).filter((n) => before[n] !== after[n]);
  const unset = Object.keys(before).filter((n) => !(n in after));
  return { set: set.sort(), unset: unset.sort() };
}

/** The connection a new credential is for, as read before the credential was made. */
export interface CredentialHolder {
  id: string;
  projectId: string;
  siteId: string;
  level: Level;
  credentialMode: 'own' | 'shared' | 'none';
  credentialName: string | null;
}

/**
 * Installs `made`, a credential already created at the provider, as the connection's own, in
 * one transaction with the site's live patch (reason `credential`); returns the patch ids. The
 * connection is re-read under lock first: if a concurrent change moved it (its mode, level or,
 * for an own credential, its name differ from `seen`), nothing is written. Either way, unless
 * it was installed, `made` is dropped again, so no credential is left behind. The same
 * transaction records `repair` in the project's Activity (by `system`).
 */
export async function installOwnCredential(
  ctx: JobContext,
  seen: CredentialHolder,
  target: CredentialTarget,
  made: { name: string; secret: string },
  repair: RepairKind = 'own credential',
): Promise<string[]> {
  try {
    return await ctx.db.transaction(async (tx) => {
      // The site first, as every change of its connections takes it (no deadlock), raising its
      // version so a connection write that read the old credential fails its guard.
      await tx
        .update(sites)
        .set({ connectionsVersion: sql`${sites.connectionsVersion} + 1` })
        .where(eq(sites.id, seen.siteId));
      const [locked] = await tx
        .select({
          mode: connections.credentialMode,
          level: connections.level,
          name: connections.credentialName,
        })
        .from(connections)
        .where(eq(connections.id, seen.id))
        .for('update');
      const unchanged =
        locked?.mode === seen.credentialMode &&
        locked.level === seen.level &&
        (seen.credentialMode !== 'own' || locked.name === seen.credentialName);
      if (!unchanged) throw new InstallRaced();
      const before = await deriveSiteEnv(tx, ctx.config, ctx.adapters, seen.siteId);
      await tx
        .update(connections)
        .set({
          credentialMode: 'own',
          credentialName: made.name,
          credentialSecretCiphertext: await ctx.config.keyring.encrypt(made.secret),
        })
        .where(eq(connections.id, seen.id));
      const after = await deriveSiteEnv(tx, ctx.config, ctx.adapters, seen.siteId);
      const names = changedNames(before?.effective ?? {}, after?.effective ?? {});
      await connectionRepairEvent(tx, seen.id, repair);
      return recordPatches(tx, [
        { projectId: seen.projectId, siteId: seen.siteId, reason: 'credential', ...names },
      ]);
    });
  } catch (err) {
    await dropCredential(ctx, { target, name: made.name }).catch((e: Error) =>
      ctx.log.error('dropping an unused credential failed; the reconciler removes orphans:', e),
    );
    if (err instanceof InstallRaced) return [];
    throw err;
  }
}

/** Switches one shared connection to its own credential; returns the live patches it recorded. */
async function switchOne(ctx: JobContext, connectionId: string): Promise<string[]> {
  const [conn] = await ctx.db.select().from(connections).where(eq(connections.id, connectionId));
  if (conn?.credentialMode !== 'shared' || !hasCredential(conn.kind)) return [];
  const level = storedLevel(conn);
  const target = await loadTargetAnyState(ctx.db, conn.kind, conn.resourceId);
  if (!target || !isCredentialLevel(level) || usesSharedCredential(target)) return [];
  const made = await createConnectionCredential(ctx, { target, level });
  if (made.mode !== 'own') return [];
  return installOwnCredential(ctx, conn, target, made);
}

class InstallRaced extends Error {}

/**
 * Switches shared connections that may now have their own credential: of one project or all,
 * legacy sites included or not. Tries every connection; throws at the end if any failed, so the
 * queue retries. Returns how many connections switched.
 */
export async function switchSharedConnections(
  ctx: JobContext,
  scope: { projectId?: string; includeLegacy: boolean; limit?: number },
): Promise<number> {
  const rows = await ctx.db
    .select({ id: connections.id, siteId: connections.siteId, legacy: sites.legacyCredentials })
    .from(connections)
    .innerJoin(sites, eq(sites.id, connections.siteId))
    .where(
      and(
        // A literal, so the partial index on shared connections serves every plan.
        sql`${connections.credentialMode} = 'shared'`,
        inArray(connections.kind, CREDENTIAL_KIND_NAMES),
        scope.projectId ? eq(connections.projectId, scope.projectId) : undefined,
        scope.includeLegacy ? undefined : eq(sites.legacyCredentials, false),
        // A connection whose switch failed lately waits out its backoff; the others go first.
        scope.projectId ? undefined : notBackingOff(SWITCH_STEP, sql`${connections.id}`),
      ),
    )
    // Oldest first, so a batch's limit never starves the connections made earliest.
    .orderBy(asc(connections.createdAt))
    .limit(scope.limit ?? 200);
  let switched = 0;
  const failures: string[] = [];
  const deliveryIds: string[] = [];
  await runItems(
    ctx.db,
    SWITCH_STEP,
    rows,
    (row) => row.id,
    async (row) => {
      try {
        const ids = await switchOne(ctx, row.id);
        if (ids.length > 0) switched++;
        deliveryIds.push(...ids);
        return ids.length > 0;
      } catch (err) {
        failures.push((err as Error).message);
        throw err;
      }
    },
    // One at a time: switches of one site's connections write the same site's patches.
    { parallel: 1 },
  );
  if (scope.includeLegacy && failures.length === 0) {
    // Every connection that can have its own credential now has it: the site is no longer legacy.
    await ctx.db
      .update(sites)
      .set({ legacyCredentials: false })
      .where(
        and(
          eq(sites.legacyCredentials, true),
          scope.projectId ? eq(sites.projectId, scope.projectId) : undefined,
        ),
      );
  }
  await enqueueDeliveries(ctx, deliveryIds);
  // Apps that moved to their own credential may have been the last holders of a shared read-only login.
  if (switched > 0) await rotateUnusedReaders(ctx);
  // The queue retries a project's switch; the reconciler's failures are recorded per connection instead.
  if (failures.length > 0 && scope.projectId)
    throw new Error(`${failures.length} credential switch(es) failed: ${failures[0]}`);
  return switched;
}

/** Whether the project still has a site on the services' shared credentials. */
async function hasLegacySite(db: Db, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: sites.id })
    .from(sites)
    .where(and(eq(sites.projectId, projectId), eq(sites.legacyCredentials, true)))
    .limit(1);
  return Boolean(row);
}

/**
 * At a deploy: switches the project's legacy connections right away, so the deploy already
 * hands the new credentials. A failure leaves the shared ones (still valid) and queues a retry.
 */
export async function switchLegacyNow(ctx: JobContext, projectId: string): Promise<void> {
  if (!(await hasLegacySite(ctx.db, projectId))) return;
  try {
    await switchSharedConnections(ctx, { projectId, includeLegacy: true });
  } catch (err) {
    ctx.log.error('switching legacy credentials failed; queued for retry:', err);
    await ctx.queue
      .send({ type: 'switch-credentials', projectId })
      .catch((e: Error) => ctx.log.error('queueing the legacy switch failed:', e));
  }
}

/**
 * After a connection change (seen as the live patch it produced): a project with legacy sites
 * switches them now. Runs in the consumer, so the change's request never waits for it.
 */
export async function switchLegacyAfterChange(
  ctx: JobContext,
  patch: { projectId: string; reason: string | null },
): Promise<void> {
  // A patch that itself handed out credentials is the switch's own doing.
  if (patch.reason === 'credential') return;
  if (!(await hasLegacySite(ctx.db, patch.projectId))) return;
  await switchSharedConnections(ctx, { projectId: patch.projectId, includeLegacy: true });
}
