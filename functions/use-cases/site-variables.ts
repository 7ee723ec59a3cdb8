/**
 * The user-set variables of a site, kept encrypted as one JSON document; a change is delivered to
 * the site's running app like any other (the names that changed, reason `variables`).
 */
import { sql } from 'drizzle-orm';
import { runBatch } from '../../db/client';
import type { SiteRow } from '../../db/rows';
import { sites } from '../../db/schema';
import type { Config } from '../config';
import type { RequestContext } from '../request-context';
import { activityQuery } from './activity';
import { enqueueDeliveries, patchInsert } from './delivery/deliveries';
import { siteIs } from './sites';

/** Decrypts a site's user-set variables. */
export async function readUserVars(config: Config, site: SiteRow): Promise<Record<string, string>> {
  if (!site.varsCiphertext) return {};
  return JSON.parse(await config.keyring.decrypt(site.varsCiphertext)) as Record<string, string>;
}

/** The names whose user-set value `after` changes from `before`: set (new or changed) and unset (gone). */
export function changedNames(
  before: Record<string, string>,
  after: Record<string, string>,
): { set: string[]; unset: string[] } {
  return {
    set: Object.keys(after).filter((name) => !Object.hasOwn(before, name) || before[name] !== after[name]),
    unset: Object.keys(before).filter((name) => !Object.hasOwn(after, name)),
  };
}

/**
 * Replaces the user-set variables of `site` (as the route read it) of the project, encrypted as
 * one document, and records the live patch of the names that changed (reason `variables`,
 * docs/contract.md §14; none when nothing did), in one batch; then enqueues that patch. False
 * when the site went away meanwhile.
 */
export async function writeUserVars(
  ctx: RequestContext,
  { projectId, site, vars }: { projectId: string; site: SiteRow; vars: Record<string, string> },
): Promise<boolean> {
  const db = ctx.http;
  const config = ctx.config;
  const where = siteIs(projectId, { id: site.id });
  const changed = changedNames(await readUserVars(config, site), vars);
  const patch = patchInsert(db, [{ projectId, siteId: site.id, reason: 'variables', ...changed }]);
  // The names only: a variable's value may be a secret.
  const event = {
    action: 'env.set',
    target: { type: 'site', id: site.id, name: site.slug },
    projectId,
    siteId: site.id,
    details: { names: Object.keys(vars).sort() },
  };
  const [updated] = await runBatch(db, [
    db
      .update(sites)
      .set({ varsCiphertext: await config.keyring.encrypt(JSON.stringify(vars)) })
      .where(where)
      .returning({ id: sites.id }),
    activityQuery(db, ctx.activity, event, sql`exists (select 1 from ${sites} where ${where})`),
    ...(patch.query ? [patch.query] : []),
  ]);
  if ((updated as unknown[]).length === 0) return false;
  await enqueueDeliveries(ctx, patch.ids);
  return true;
}
