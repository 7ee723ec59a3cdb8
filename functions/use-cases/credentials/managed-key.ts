/**
 * The managed platform key of a site (PLATFORM_API_KEY): a project API key whose capabilities
 * are derived from the site's connections, recomputed inside every transaction that changes them.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type BatchQuery, type Queryable, rowsOf, type Tx } from '../../../db/client';
import { type ApiKeyCapabilities, apiKeys, sites } from '../../../db/schema';
import type { Config } from '../../config';
import { MANAGED_KEY_NAME } from '../../domain/variables';
import { serviceKinds } from '../../kinds/registry';
import { sha256Hex } from '../../lib/crypto';
import { newId, newSecret } from '../../lib/ids';
import { recordPatches } from '../delivery/deliveries';

/** What a recompute did. `changed` is true when PLATFORM_API_KEY itself appeared, changed or went away. */
export interface ManagedKeyChange {
  changed: boolean;
  /** The key's capabilities changed while its value stayed. */
  capabilitiesChanged: boolean;
  capabilities: ApiKeyCapabilities | null;
}

/**
 * Capabilities a set of connections implies: storage for any bucket, databases for any database,
 * auth narrowed to the auth apps connected at admin. Read levels grant the same; null when none.
 */
export function capabilitiesOf(
  conns: Array<{ kind: string; resourceId: string; level: string }>,
): ApiKeyCapabilities | null {
  const caps: ApiKeyCapabilities = Object.assign(
    {},
    ...serviceKinds().map((k) => k.capabilities(conns.filter((c) => c.kind === k.name))),
  );
  return Object.keys(caps).length > 0 ? caps : null;
}

function sameCapabilities(a: ApiKeyCapabilities, b: ApiKeyCapabilities): boolean {
  return (
    !!a.storage === !!b.storage &&
    !!a.databases === !!b.databases &&
    JSON.stringify([...(a.auth ?? [])].sort()) === JSON.stringify([...(b.auth ?? [])].sort())
  );
}

/** A site's managed key as a write read it: its id and capabilities (null when it has none). */
export type CurrentKey = { id: string; capabilities: ApiKeyCapabilities } | null;

/** SQL for the current managed key of the site whose id `siteId` gives, as JSON {id, capabilities}. */
export const currentKeyJson = (
  siteId: unknown,
) => sql`(select json_build_object('id', k.id, 'capabilities', k.capabilities)
  from api_keys k where k.site_id = ${siteId} and k.revoked_at is null limit 1)`;

/**
 * The statements that bring a site's managed key from `current` (read earlier in the same
 * write, under the guard that the site's connections did not change since) to what
 * `connections` imply, and whether PLATFORM_API_KEY itself appears, changes or goes away.
 * They name the site's live key rather than `current`'s id, so a key replaced meanwhile by
 * hand (replaceManagedKey) is the one narrowed, widened or revoked.
 */
export async function managedKeyStatements(
  db: Queryable,
  config: Config,
  site: { id: string; projectId: string; slug: string },
  current: CurrentKey,
  connections: Array<{ kind: string; resourceId: string; level: string }>,
): Promise<{ queries: BatchQuery[]; change: ManagedKeyChange }> {
  const wanted = capabilitiesOf(connections);
  const live = and(eq(apiKeys.siteId, site.id), isNull(apiKeys.revokedAt));
  if (!wanted) {
    if (!current)
      return { queries: [], change: { changed: false, capabilitiesChanged: false, capabilities: null } };
    return {
      queries: [db.update(apiKeys).set({ revokedAt: new Date() }).where(live)],
      change: { changed: true, capabilitiesChanged: true, capabilities: null },
    };
  }
  if (current) {
    if (sameCapabilities(current.capabilities, wanted))
      return { queries: [], change: { changed: false, capabilitiesChanged: false, capabilities: wanted } };
    return {
      queries: [db.update(apiKeys).set({ capabilities: wanted }).where(live)],
      change: { changed: false, capabilitiesChanged: true, capabilities: wanted },
    };
  }
  const key = newSecret('apiKey');
  const insert = db.insert(apiKeys).values({
    id: newId(),
    projectId: site.projectId,
    name: `managed key of site ${site.slug}`,
    keyHash: await sha256Hex(key),
    keyCiphertext: await config.keyring.encrypt(key),
    capabilities: wanted,
    siteId: site.id,
  });
  return { queries: [insert], change: { changed: true, capabilitiesChanged: true, capabilities: wanted } };
}

/**
 * Mints, narrows, widens or revokes the site's managed key to match its connections. The caller
 * holds the site's row lock (taken in an earlier statement of `tx`), so two concurrent changes
 * cannot both mint a key and this one statement reads what the previous holder committed.
 */
export async function recomputeManagedKey(tx: Tx, config: Config, siteId: string): Promise<ManagedKeyChange> {
  const [row] = await rowsOf<{
    project_id: string | null;
    slug: string | null;
    current: CurrentKey;
    conns: Array<[string, string, string]> | null;
  }>(
    tx,
    sql`
    select s.project_id, s.slug, ${currentKeyJson(sql`x.id`)} as current,
      (select json_agg(json_build_array(c.kind, c.resource_id, c.level)) from connections c
        where c.site_id = s.id) as conns
    from (select ${siteId}::uuid as id) x left join sites s on s.id = x.id`,
  );
  // A site deleted meanwhile implies no key: its live one, if any, is revoked.
  const site = { id: siteId, projectId: row?.project_id ?? '', slug: row?.slug ?? '' };
  const conns = site.projectId && site.slug ? (row?.conns ?? []) : [];
  const { queries, change } = await managedKeyStatements(
    tx,
    config,
    site,
    row?.current ?? null,
    conns.map(([kind, resourceId, level]) => ({ kind, resourceId, level })),
  );
  for (const query of queries) await query;
  return change;
}

/**
 * Revokes a site's managed key by hand: the site's connections still imply it, so a new one is
 * minted in the same transaction (a rotation, e.g. of a leaked key) and a live patch recorded.
 * Returns the patch's delivery ids, to enqueue after commit; null when the key was revoked already.
 */
export async function replaceManagedKey(
  tx: Tx,
  config: Config,
  key: { id: string; projectId: string; siteId: string },
): Promise<string[] | null> {
  // The site first, as every change of its connections locks it: the same order, no deadlock.
  await tx.select({ id: sites.id }).from(sites).where(eq(sites.id, key.siteId)).for('update');
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, key.id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (revoked.length === 0) return null;
  const next = await recomputeManagedKey(tx, config, key.siteId);
  const names = [MANAGED_KEY_NAME];
  return recordPatches(tx, [
    {
      projectId: key.projectId,
      siteId: key.siteId,
      reason: 'key',
      set: next.capabilities ? names : [],
      unset: next.capabilities ? [] : names,
    },
  ]);
}
