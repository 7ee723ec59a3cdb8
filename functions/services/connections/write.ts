/**
 * The database half of a plan, inside one transaction: rows, credential cleanups, managed keys
 * and the live patches of every site it changes. The number of statements does not grow with
 * the size of the plan (one per kind of change), so a PUT of 100 connections costs what a PUT of 1 does.
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../../db/client';
import { connections, credentialCleanups } from '../../../db/schema';
import { MANAGED_KEY_NAME } from '../../domain/variables';
import type { Config } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { recomputeManagedKey } from '../credentials/managed-key';
import { recordPatches } from '../delivery/deliveries';
import type { ConnectionInfo } from './model';
import { addsHoldingPlain, affectedSites, hasCredential, type Plan, reasonFor, sitePatchNames } from './plan';
import type { Prepared } from './prepare';
import { readProjectConnections } from './queries';

/** Another request changed the same sites first; the caller may re-read and try again. */
export class ConcurrentChange extends ApiError {
  constructor(readonly projectId: string) {
    super('CONFLICT', 'the connections changed while this request ran; retry');
  }
}

/** What a written plan produced. */
export interface Written {
  inserted: ConnectionInfo[];
  deliveryIds: string[];
  cleanupIds: string[];
}

const list = (items: SQL[]): SQL => sql.join(items, sql`, `);

/** Locks the sites' rows, so changes to one site's connections commit one after another. */
async function lockSites(tx: Tx, sites: string[]): Promise<void> {
  const ids = list(sites.map((s) => sql`${s}::uuid`));
  await tx.execute(sql`select id from sites where id in (${ids}) order by id for update`);
}

/**
 * Checks, after `lockSites`, that the sites' connections are still what the plan was made from.
 * A separate statement: under READ COMMITTED it reads after the lock, seeing what the previous
 * holder committed (one statement would keep its pre-lock snapshot).
 */
async function verifyUnchanged(tx: Tx, prepared: Prepared, sites: string[]): Promise<void> {
  const ids = list(sites.map((s) => sql`${s}::uuid`));
  const result = await tx.execute<{
    id: string;
    level: string;
    credential_name: string | null;
    holds_plain: boolean;
    site_id: string;
  }>(sql`
    select c.id, c.level, c.credential_name, c.holds_plain, c.site_id from connections c
    where c.site_id in (${ids}) and (
      exists (select 1 from databases d where c.kind = 'database' and d.id = c.resource_id and d.deleted_at is null)
      or exists (select 1 from buckets b where c.kind = 'bucket' and b.id = c.resource_id and b.deleted_at is null)
      or exists (select 1 from auth_apps a where c.kind = 'auth_app' and a.id = c.resource_id))`);
  const expected = prepared.plan.before.filter((c) => sites.includes(c.siteId));
  const now = new Map(result.rows.map((r) => [r.id, r]));
  const same =
    now.size === expected.length &&
    expected.every((c) => {
      const r = now.get(c.id);
      return (
        r !== undefined &&
        r.level === c.level &&
        r.credential_name === c.credentialName &&
        r.holds_plain === c.holdsPlain
      );
    });
  if (!same) throw new ConcurrentChange(prepared.plan.projectId);
}

/** Brings a plan of new services' connections up to date with the sites as locked now. */
async function rereadBefore(tx: Tx, plan: Plan, sites: string[]): Promise<void> {
  const current: ConnectionInfo[] = [];
  for (const siteId of sites) current.push(...(await readProjectConnections(tx, plan.projectId, { siteId })));
  plan.before = current;
}

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

async function insertAdds(tx: Tx, config: Config, prepared: Prepared): Promise<ConnectionInfo[]> {
  const { plan, credentials } = prepared;
  if (plan.adds.length === 0) return [];
  const times = creationTimes(prepared);
  const holding = addsHoldingPlain(plan);
  const rows = await Promise.all(
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
  const done = await tx
    .insert(connections)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: connections.id });
  if (done.length !== rows.length) throw new ConcurrentChange(plan.projectId);
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

async function updateLevels(tx: Tx, prepared: Prepared): Promise<void> {
  const { levels } = prepared.plan;
  if (levels.length === 0) return;
  const values = list(levels.map((l) => sql`(${l.conn.id}::uuid, ${l.grant.level})`));
  await tx.execute(sql`
    update connections as c set level = v.level from (values ${values}) as v(id, level) where c.id = v.id`);
}

/** Gives each promoted connection its family's plain names, taking them from the sibling holding them. */
async function updatePromotes(tx: Tx, plan: Plan): Promise<void> {
  for (const winner of plan.promotes) {
    const family = plan.before
      .filter((c) => c.siteId === winner.siteId && c.family === winner.family)
      .map((c) => sql`${c.id}::uuid`);
    await tx.execute(sql`
      update connections set holds_plain = (id = ${winner.id}::uuid) where id in (${list(family)})`);
  }
}

/** Stores rotated credentials (also used alone when the plan's transaction failed after rotating). */
export async function storeRotations(tx: DbOrTx, config: Config, prepared: Prepared): Promise<void> {
  for (const [id, cred] of prepared.rotated) {
    await tx.execute(sql`
      update connections set credential_name = ${cred.name},
        credential_secret_ciphertext = ${await config.keyring.encrypt(cred.secret)} where id = ${id}::uuid`);
  }
}

async function removeRows(tx: Tx, prepared: Prepared): Promise<string[]> {
  const { removes } = prepared.plan;
  if (removes.length === 0) return [];
  await tx.delete(connections).where(
    inArray(
      connections.id,
      removes.map((r) => r.id),
    ),
  );
  const cleanups = removes
    .filter((r) => r.credentialMode === 'own' && r.credentialName && hasCredential(r.kind))
    .map((r) => ({
      id: newId(),
      kind: r.kind as 'database' | 'bucket',
      resourceId: r.resourceId,
      credentialName: r.credentialName as string,
    }));
  if (cleanups.length > 0) await tx.insert(credentialCleanups).values(cleanups);
  return cleanups.map((c) => c.id);
}

/** Writes a prepared plan in `tx`. */
export async function writePlan(tx: Tx, config: Config, prepared: Prepared): Promise<Written> {
  const { plan } = prepared;
  const sites = affectedSites(plan);
  if (sites.length === 0) return { inserted: [], deliveryIds: [], cleanupIds: [] };
  await lockSites(tx, sites);
  if (plan.rereadUnderLock) await rereadBefore(tx, plan, sites);
  else await verifyUnchanged(tx, prepared, sites);
  const inserted = await insertAdds(tx, config, prepared);
  await updateLevels(tx, prepared);
  await updatePromotes(tx, plan);
  await storeRotations(tx, config, prepared);
  const cleanupIds = await removeRows(tx, prepared);

  const patches = [];
  for (const siteId of sites) {
    const names = sitePatchNames(plan, siteId, inserted);
    const membershipChanged =
      plan.adds.some((a) => a.siteId === siteId) ||
      plan.removes.some((r) => r.siteId === siteId) ||
      plan.levels.some((l) => l.conn.siteId === siteId);
    if (membershipChanged) {
      const key = await recomputeManagedKey(tx, config, siteId);
      if (key.changed) (key.capabilities ? names.set : names.unset).push(MANAGED_KEY_NAME);
    }
    patches.push({ projectId: plan.projectId, siteId, reason: reasonFor(plan, siteId), ...names });
  }
  const deliveryIds = await recordPatches(tx, patches);
  return { inserted, deliveryIds, cleanupIds };
}
