/**
 * A plan written inside a caller's interactive transaction (a new service with its initial
 * connection, a service's deletion): the sites are locked and checked first, then the plan's
 * statements run one by one. Requests of their own use the guarded batch (guarded-write.ts).
 */
import { and, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../../db/client';
import { apiKeys } from '../../../db/schema';
import type { Config } from '../../config';
import { serviceIsLive } from '../../kinds/service-sql';
import type { CurrentKey } from '../credentials/managed-key';
import type { ConnectionInfo } from './model';
import { affectedSites, type Plan } from './plan';
import type { Prepared } from './prepare';
import { readProjectConnections } from './queries';
import {
  ConcurrentChange,
  isConcurrentChangeError,
  nothingWritten,
  planStatements,
  type Written,
} from './write';

const list = (items: SQL[]): SQL => sql.join(items, sql`, `);

/**
 * Locks the sites' rows (in id order, so two writes never wait on each other in a circle) and
 * raises their connections_version, so a guarded write that read them earlier fails.
 */
async function lockSites(tx: Tx, sites: string[]): Promise<void> {
  const ids = list(sites.map((s) => sql`${s}::uuid`));
  await tx.execute(sql`
    update sites set connections_version = connections_version + 1
    where id in (select id from sites where id in (${ids}) order by id for update)`);
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
    where c.site_id in (${ids}) and ${serviceIsLive(sql`c.kind`, sql`c.resource_id`)}`);
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

/** The sites' managed keys as they are now (read under `lockSites`). */
async function readCurrentKeys(tx: Tx, sites: string[]): Promise<Map<string, CurrentKey>> {
  const rows = await tx
    .select({ id: apiKeys.id, siteId: apiKeys.siteId, capabilities: apiKeys.capabilities })
    .from(apiKeys)
    .where(and(inArray(apiKeys.siteId, sites), isNull(apiKeys.revokedAt)));
  return new Map(rows.map((r) => [r.siteId as string, { id: r.id, capabilities: r.capabilities }]));
}

/**
 * Writes a prepared plan in `tx`, the caller's interactive transaction (a new service with its
 * initial connection, a service's deletion): locks the sites, checks them, then runs the plan's
 * statements one by one.
 */
export async function writePlan(tx: Tx, config: Config, prepared: Prepared): Promise<Written> {
  const { plan } = prepared;
  const sites = affectedSites(plan);
  if (sites.length === 0) return nothingWritten();
  await lockSites(tx, sites);
  if (plan.rereadUnderLock) await rereadBefore(tx, plan, sites);
  else await verifyUnchanged(tx, prepared, sites);
  const { queries, written } = await planStatements(tx, config, prepared, await readCurrentKeys(tx, sites));
  try {
    for (const q of queries) await q;
  } catch (err) {
    if (isConcurrentChangeError(err)) throw new ConcurrentChange(plan.projectId);
    throw err;
  }
  return written;
}
