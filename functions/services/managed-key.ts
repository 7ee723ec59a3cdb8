/**
 * The managed platform key of a site (PLATFORM_API_KEY): a project API key whose capabilities
 * are derived from the site's connections, recomputed inside every transaction that changes them.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { type ApiKeyCapabilities, apiKeys, connections, sites } from '../../db/schema';
import { MANAGED_KEY_NAME } from '../domain/variables';
import type { Config } from '../env';
import { sha256Hex } from '../lib/crypto';
import { newId, newSecret } from '../lib/ids';
import { recordPatches } from './deliveries';

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
  const caps: ApiKeyCapabilities = {};
  if (conns.some((c) => c.kind === 'bucket')) caps.storage = true;
  if (conns.some((c) => c.kind === 'database')) caps.databases = true;
  const auth = [
    ...new Set(conns.filter((c) => c.kind === 'auth_app' && c.level === 'admin').map((c) => c.resourceId)),
  ];
  if (auth.length > 0) caps.auth = auth.sort();
  return Object.keys(caps).length > 0 ? caps : null;
}

function sameCapabilities(a: ApiKeyCapabilities, b: ApiKeyCapabilities): boolean {
  return (
    !!a.storage === !!b.storage &&
    !!a.databases === !!b.databases &&
    JSON.stringify([...(a.auth ?? [])].sort()) === JSON.stringify([...(b.auth ?? [])].sort())
  );
}

/** Mints, narrows, widens or revokes the site's managed key to match its connections. */
export async function recomputeManagedKey(tx: Tx, config: Config, siteId: string): Promise<ManagedKeyChange> {
  // Serialises recomputes of one site, so two concurrent changes cannot both mint a key.
  const [site] = await tx
    .select({ id: sites.id, projectId: sites.projectId, slug: sites.slug })
    .from(sites)
    .where(eq(sites.id, siteId))
    .for('update');
  const [current] = await tx
    .select({ id: apiKeys.id, capabilities: apiKeys.capabilities })
    .from(apiKeys)
    .where(and(eq(apiKeys.siteId, siteId), isNull(apiKeys.revokedAt)));
  const conns = site
    ? await tx
        .select({ kind: connections.kind, resourceId: connections.resourceId, level: connections.level })
        .from(connections)
        .where(eq(connections.siteId, siteId))
    : [];
  const wanted = capabilitiesOf(conns);

  if (!wanted || !site) {
    if (!current) return { changed: false, capabilitiesChanged: false, capabilities: null };
    await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, current.id));
    return { changed: true, capabilitiesChanged: true, capabilities: null };
  }
  if (current) {
    if (sameCapabilities(current.capabilities, wanted))
      return { changed: false, capabilitiesChanged: false, capabilities: wanted };
    await tx.update(apiKeys).set({ capabilities: wanted }).where(eq(apiKeys.id, current.id));
    return { changed: false, capabilitiesChanged: true, capabilities: wanted };
  }
  const key = newSecret('apiKey');
  await tx.insert(apiKeys).values({
    id: newId(),
    projectId: site.projectId,
    name: `managed key of site ${site.slug}`,
    keyHash: await sha256Hex(key),
    keyCiphertext: await config.keyring.encrypt(key),
    capabilities: wanted,
    siteId,
  });
  return { changed: true, capabilitiesChanged: true, capabilities: wanted };
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
