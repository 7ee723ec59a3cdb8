/**
 * The database half of a plan, in one transaction: rows, credential cleanups, managed keys
 * and the live patches of every site it changes, as statements a guarded batch sends in one
 * round trip (guarded-write.ts) or a caller's interactive transaction runs (writePlan). The number of statements does not grow with
 * the size of the plan (one per kind of change), so a PUT of 100 connections costs what a PUT of 1 does.
 */

import { inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';
import { connections, credentialCleanups } from '../../../db/schema';
import type { Config } from '../../config';
import { MANAGED_KEY_NAME } from '../../domain/variables';
import type { CredentialKindName } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { activityQuery } from '../activity';
import { type CurrentKey, managedKeyStatements } from '../credentials/managed-key';
import { patchInsert } from '../delivery/deliveries';
import { connectionEvents } from './activity-events';
import { liveServicesGuard } from './live-services';
import type { CleanupRef, ConnectionInfo } from './model';
import {
  addsHoldingPlain,
  affectedSites,
  afterOf,
  hasCredential,
  type Plan,
  reasonFor,
  sitePatchNames,
} from './plan';
import type { Prepared } from './prepare';
import { retiringRemovals, rotationRowStatements } from './rotation-rows';

/** Another request changed the same sites first; the caller may re-read and try again. */
export class ConcurrentChange extends ApiError {
  constructor(readonly projectId: string) {
    super('CONFLICT', 'the connections changed while this request ran; retry');
  }
}

export type { CleanupRef } from './model';

/** What a written plan produced. */
export interface Written {
  inserted: ConnectionInfo[];
  deliveryIds: string[];
  cleanups: CleanupRef[];
}

/** What a plan that changes nothing writes. */
export const nothingWritten = (): Written => ({ inserted: [], deliveryIds: [], cleanups: [] });

/**
 * Whether a failed write lost a race without its guard saying so: a connection was inserted
 * twice (23505), or two writes deadlocked or could not be serialised (40P01, 40001). The
 * driver's error may carry the code itself or as its cause.
 */
export function isConcurrentChangeError(err: unknown): boolean {
  const codes = ['23505', '40P01', '40001'];
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (typeof e.code === 'string' && codes.includes(e.code)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

const list = (items: SQL[]): SQL => sql.join(items, sql`, `);

/** Creation times for new connections: after every connection the site already has, in plan order. */
function creationTimes(prepared: Prepared): Date[] {
  const latest = new Map<string, number>();
  for (const c of prepared.plan.before) {
    latest.set(c.siteId, Math.max(latest.get(c.siteId) ?? 0, c.createdAt.getTime()));
  }
  const now = Date.now();
  return prepared.plan.adds.map((a) => {
    const t = Math.max(now, (latest.get(a.siteId) ?? 0) + 1);
    latest.set(a.siteId, t);
    return new Date(t);
  });
}

/** The rows of the plan's new connections (a repeated one fails the write: 23505, a lost race). */
async function addRows(config: Config, prepared: Prepared) {
  const { plan, credentials } = prepared;
  const times = creationTimes(prepared);
  const holding = addsHoldingPlain(plan);
  return Promise.all(
    plan.adds.map(async (a, i) => {
      const cred = credentials[i];
      const own = cred?.mode === 'own' ? cred : null;
      return {
        id: newId(),
        projectId: plan.projectId,
        siteId: a.siteId,
        kind: a.resource.kind,
        resourceId: a.resource.id,
        level: a.grant.level,
        credentialMode: hasCredential(a.resource.kind) ? (own ? 'own' : 'shared') : 'none',
        credentialName: own?.name ?? null,
        credentialSecretCiphertext: own ? await config.keyring.encrypt(own.secret) : null,
        holdsPlain: holding[i] === true,
        createdAt: times[i] as Date,
      } as const;
    }),
  );
}

/** The new connections as the routes describe them. */
function insertedInfo(plan: Plan, rows: Awaited<ReturnType<typeof addRows>>): ConnectionInfo[] {
  return rows.map((r, i) => {
    const a = plan.adds[i] as (typeof plan.adds)[number];
    return {
      id: r.id,
      projectId: r.projectId,
      siteId: r.siteId,
      siteSlug: a.siteSlug,
      kind: r.kind,
      resourceId: r.resourceId,
      resourceName: a.resource.name,
      family: a.resource.family,
      level: r.level,
      credentialMode: r.credentialMode,
      credentialName: r.credentialName,
      holdsPlain: r.holdsPlain,
      createdAt: r.createdAt,
    };
  });
}

/** Gives each promoted connection its family's plain names, taking them from the sibling holding them. */
function promoteStatements(db: Queryable, plan: Plan): BatchQuery[] {
  return plan.promotes.map((winner) => {
    const family = plan.before
      .filter((c) => c.siteId === winner.siteId && c.family === winner.family)
      .map((c) => sql`${c.id}::uuid`);
    return db.execute(sql`
      update connections set holds_plain = (id = ${winner.id}::uuid) where id in (${list(family)})`);
  });
}

/** Stores rotated credentials' new secrets. */
async function rotationStatements(db: Queryable, config: Config, prepared: Prepared): Promise<BatchQuery[]> {
  const out: BatchQuery[] = [];
  for (const [id, cred] of prepared.rotated) {
    out.push(
      db.execute(sql`
      update connections set credential_name = ${cred.name},
        credential_secret_ciphertext = ${await config.keyring.encrypt(cred.secret)} where id = ${id}::uuid`),
    );
  }
  return out;
}

/** Stores rotated credentials alone, when the plan's write failed after rotating (a rotation cannot be undone). */
export async function storeRotations(db: Queryable, config: Config, prepared: Prepared): Promise<void> {
  for (const q of await rotationStatements(db, config, prepared)) await q;
}

/** Deletes the removed connections and records the cleanup of their own credentials. */
function removeStatements(db: Queryable, plan: Plan): { queries: BatchQuery[]; cleanups: CleanupRef[] } {
  if (plan.removes.length === 0) return { queries: [], cleanups: [] };
  const queries: BatchQuery[] = [
    db.delete(connections).where(
      inArray(
        connections.id,
        plan.removes.map((r) => r.id),
      ),
    ),
  ];
  const cleanups = plan.removes
    .filter((r) => r.credentialMode === 'own' && r.credentialName && hasCredential(r.kind))
    .map((r) => ({
      id: newId(),
      kind: r.kind as CredentialKindName,
      resourceId: r.resourceId,
      credentialName: r.credentialName as string,
    }));
  const retiring = retiringRemovals(db, plan.removes);
  cleanups.push(...retiring.cleanups);
  if (cleanups.length > 0) queries.push(db.insert(credentialCleanups).values(cleanups));
  queries.push(...retiring.queries);
  return { queries, cleanups };
}

/**
 * Every statement of a prepared plan, not yet sent, given the current managed key of each site
 * it changes: new rows, levels, plain names, rotated secrets, removals and their cleanups, the
 * managed keys and the live patches. The caller sends them in one transaction, after the
 * statement that makes sure the sites did not change since the plan was read.
 */
export async function planStatements(
  db: Queryable,
  config: Config,
  prepared: Prepared,
  keys: ReadonlyMap<string, CurrentKey>,
): Promise<{ queries: BatchQuery[]; written: Written }> {
  const { plan } = prepared;
  const queries: BatchQuery[] = [];
  const rows = await addRows(config, prepared);
  // The services connected stay live until the batch commits (a deletion beside it waits or wins).
  const live = liveServicesGuard(plan);
  if (live) queries.push(db.execute(live));
  if (rows.length > 0) queries.push(db.insert(connections).values(rows));
  const inserted = insertedInfo(plan, rows);
  if (plan.levels.length > 0) {
    const values = list(plan.levels.map((l) => sql`(${l.conn.id}::uuid, ${l.grant.level})`));
    queries.push(
      db.execute(sql`
      update connections as c set level = v.level from (values ${values}) as v(id, level) where c.id = v.id`),
    );
  }
  queries.push(...promoteStatements(db, plan), ...(await rotationStatements(db, config, prepared)));
  // In the same transaction as the connections it hands it to: a rotation of a shared login sees both or neither.
  if (prepared.readers.length > 0)
    queries.push(
      db.execute(sql`
      update databases set reader_handed = true where id in (${list(prepared.readers.map((id) => sql`${id}::uuid`))})`),
    );
  if (prepared.writers.length > 0)
    queries.push(
      db.execute(sql`
      update databases set writer_handed = true where id in (${list(prepared.writers.map((id) => sql`${id}::uuid`))})`),
    );
  const removal = removeStatements(db, plan);
  queries.push(...removal.queries);

  const patches = [];
  for (const siteId of affectedSites(plan)) {
    const names = sitePatchNames(plan, siteId, inserted);
    const membershipChanged =
      plan.adds.some((a) => a.siteId === siteId) ||
      plan.removes.some((r) => r.siteId === siteId) ||
      plan.levels.some((l) => l.conn.siteId === siteId);
    if (membershipChanged) {
      const after = afterOf(plan, siteId, inserted);
      const slug = [...plan.before, ...inserted].find((c) => c.siteId === siteId)?.siteSlug ?? '';
      const site = { id: siteId, projectId: plan.projectId, slug };
      const key = await managedKeyStatements(db, config, site, keys.get(siteId) ?? null, after);
      queries.push(...key.queries);
      if (key.change.changed) (key.change.capabilities ? names.set : names.unset).push(MANAGED_KEY_NAME);
    }
    patches.push({ projectId: plan.projectId, siteId, reason: reasonFor(plan, siteId), ...names });
  }
  const recorded = patchInsert(db, patches);
  if (recorded.query) queries.push(recorded.query);
  // patchInsert records the non-empty patches, in order: the rotation rows name their site's.
  const deliveryOfSite = new Map(
    patches
      .filter((p) => p.set.length > 0 || p.unset.length > 0)
      .map((p, i) => [p.siteId, recorded.ids[i] ?? '']),
  );
  queries.push(...rotationRowStatements(db, prepared, deliveryOfSite));
  const events = plan.activity ? connectionEvents(plan, inserted) : [];
  if (plan.activity && events.length > 0) queries.push(activityQuery(db, plan.activity, events));
  return { queries, written: { inserted, deliveryIds: recorded.ids, cleanups: removal.cleanups } };
}
