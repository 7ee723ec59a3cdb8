/**
 * Deploys and rollbacks of a site. Every deploy and every rollback derives the variables afresh,
 * so a rollback gets exactly what a new deploy gets (current credentials and connections, never
 * a stale copy). The listing is read with the caller's lookup (a route's declared reads, routes/declared-reads.ts):
 * one round trip.
 */

import { type SQL, sql } from 'drizzle-orm';
import { type HttpDb, type Queryable, rowsOf } from '../../db/client';
import type { Adapters } from '../adapters';
import type { Config } from '../config';
import { siteRef } from '../domain/names';
import { ApiError } from '../lib/errors';
import { isUuid, newId } from '../lib/ids';
import type { JobContext, RequestContext } from '../request-context';
import { activityStatement } from './activity';
import { projectIdOf } from './caller/api-caller';
import { switchLegacyNow } from './credentials/switch';
import { enqueueDeliveries } from './delivery/deliveries';
import { deriveSiteEnv, type SiteEnvInputs, siteEnvOf, siteInputsQuery } from './site-env/derive';

/** How many deploys the listing shows, newest first. */
export const DEPLOYS_LISTED = 50;

/** A deploy as the listing returns it: id, rollback_of, created_at, env_names. */
export type DeployTuple = [string, string | null, string, string[]];

/** SQL for the id of site `siteIdOrSlug` of the project `ref` names (null when there is none). */
function siteIdOf(ref: string, siteIdOrSlug: string): SQL {
  const site = siteRef(siteIdOrSlug);
  const id = site && 'id' in site ? site.id : null;
  const slug = site && 'slug' in site ? site.slug : null;
  return sql`(select s.id from sites s
    where s.project_id = ${projectIdOf(ref)} and (s.id = ${id}::uuid or s.slug = ${slug}))`;
}

/**
 * Site `siteIdOrSlug` of the project `ref` names, with its newest deploys as {@link DeployTuple}s
 * in column `deploys`; no row when the project has no such site.
 */
export function deploysOfSite(db: HttpDb, ref: string, siteIdOrSlug: string) {
  return db.execute<{ site_id: string; deploys: DeployTuple[] }>(sql`
    select s.id as site_id, coalesce((
      select json_agg(json_build_array(d.id, d.rollback_of, d.created_at, d.env_names) order by d.created_at desc, d.id)
        from (select * from deploys where site_id = s.id order by created_at desc, id limit ${DEPLOYS_LISTED}) d
    ), '[]') as deploys
      from sites s
     where s.id = ${siteIdOf(ref, siteIdOrSlug)}`);
}

/** A deploy as the API shows it. */
export interface DeployBody {
  id: string;
  created_at: string;
  env_names: string[];
}

/**
 * What the variables of site `siteIdOrSlug` of the project `ref` names are derived from, as a
 * query not yet sent (it goes with the caller's lookup); read it with {@link effectiveOf}.
 */
export function envInputsQuery(db: HttpDb, ref: string, siteIdOrSlug: string) {
  return siteInputsQuery(db, siteIdOf(ref, siteIdOrSlug));
}

/**
 * What a deploy (or a rollback of `deployId`) reads besides its site: the variables' inputs,
 * whether the project still has a legacy site, and the deploy rolled back when it is the site's.
 * Queries not yet sent, for the caller's lookup; pass their answers to {@link recordDeploy}.
 */
export function deployReads(db: HttpDb, ref: string, siteIdOrSlug: string, deployId?: string) {
  const target = deployId && isUuid(deployId) ? deployId.toLowerCase() : null;
  return [
    envInputsQuery(db, ref, siteIdOrSlug),
    db.execute<Record<string, unknown>>(sql`
      select exists (select 1 from sites where project_id = ${projectIdOf(ref)} and legacy_credentials) as legacy,
             (select d.id from deploys d where d.id = ${target}::uuid
                 and d.site_id = ${siteIdOf(ref, siteIdOrSlug)}) as deploy_id`),
  ] as const;
}

/** The answers of {@link deployReads}. */
export type DeployReads = [{ rows: unknown[] }, { rows: unknown[] }];

/** The site's effective variables from the answer of {@link envInputsQuery}; 404 without the site. */
export async function effectiveOf(
  ctx: Pick<RequestContext, 'config' | 'adapters'>,
  { answer }: { answer: { rows: unknown[] } },
): Promise<Record<string, string>> {
  const config = ctx.config;
  const adapters = ctx.adapters;
  const inputs = answer.rows[0] as SiteEnvInputs | undefined;
  const env = inputs ? await siteEnvOf(config, adapters, inputs) : null;
  if (!env) throw new ApiError('NOT_FOUND', 'site not found');
  return env.effective;
}

/** The site's effective variables now; 404 when the site went away meanwhile. */
async function effectiveEnv(
  db: Queryable,
  config: Config,
  adapters: Adapters,
  siteId: string,
): Promise<Record<string, string>> {
  const env = await deriveSiteEnv(db, config, adapters, siteId);
  if (!env) throw new ApiError('NOT_FOUND', 'site not found');
  return env.effective;
}

/** The deploy a rollback names, from the answers of {@link deployReads}; 404 unless it is the site's. */
export function rolledBack(reads: DeployReads): string {
  const row = reads[1].rows[0] as { deploy_id: string | null } | undefined;
  if (!row?.deploy_id) throw new ApiError('NOT_FOUND', 'deploy not found');
  return row.deploy_id;
}

/**
 * Records a deploy (or a rollback of `rollbackOf`) of what the site is handed now, derived from
 * `reads` (the answers of {@link deployReads}): one statement, unless the project has legacy
 * sites, which switch to their own credentials first and are derived afresh.
 */
export async function recordDeploy(
  ctx: JobContext,
  projectId: string,
  siteId: string,
  rollbackOf: string | null,
  reads: DeployReads,
): Promise<DeployBody> {
  const legacy = (reads[1].rows[0] as { legacy: boolean } | undefined)?.legacy === true;
  const http = ctx.http ?? ctx.db;
  let env: Record<string, string>;
  if (legacy) {
    // Legacy sites switch to their own credentials at their next deploy, which then hands them.
    await switchLegacyNow(ctx, projectId);
    env = await effectiveEnv(http, ctx.config, ctx.adapters, siteId);
  } else env = await effectiveOf(ctx, { answer: reads[0] });
  const names = Object.keys(env).sort();
  // Recorded only while the site is there: one deleted meanwhile is 404, not a failed insert.
  const id = newId();
  const event = {
    action: rollbackOf ? 'deploy.rollback' : 'deploy.create',
    target: { type: 'deploy', id, name: sql`select slug from sites where id = ${siteId}::uuid` },
    projectId,
    siteId,
    details: { rollback_of: rollbackOf, env_names: names },
  };
  const recorded = ctx.activity
    ? sql`, a as (${activityStatement(ctx.activity, event, sql`exists (select 1 from d)`)})`
    : sql``;
  const patchId = newId();
  // A rollback delivers the names it changes from the site's latest deploy (reason `variables`,
  // docs/contract.md §14): names it adds are set, names it drops unset; nothing when none differ.
  const patched = rollbackOf
    ? sql`, prev as (select env_names from deploys where site_id = ${siteId}::uuid
                      order by created_at desc, id desc limit 1),
          diff as (select coalesce((select jsonb_agg(n order by n) from jsonb_array_elements_text(d.env_names) n
                                     where not prev.env_names ? n), '[]'::jsonb) as set_names,
                          coalesce((select jsonb_agg(n order by n) from jsonb_array_elements_text(prev.env_names) n
                                     where not d.env_names ? n), '[]'::jsonb) as unset_names
                     from d, prev),
          p as (insert into deliveries (id, kind, project_id, target_id, reason, set_names, unset_names)
                select ${patchId}::uuid, 'runtime_patch', ${projectId}::uuid, ${siteId}::uuid, 'variables',
                       set_names, unset_names
                  from diff where set_names <> '[]'::jsonb or unset_names <> '[]'::jsonb
                returning id)`
    : sql``;
  const [row] = await rowsOf<{
    id: string;
    created_at: string;
    env_names: string[];
    patch_id: string | null;
  }>(
    http,
    sql`with d as (insert into deploys (id, site_id, rollback_of, env_names)
        select ${id}::uuid, s.id, ${rollbackOf}::uuid, ${JSON.stringify(names)}::jsonb from sites s
         where s.id = ${siteId}::uuid
        returning id, created_at, env_names)${recorded}${patched}
      select d.*, ${rollbackOf ? sql`(select id from p)` : sql`null::uuid`} as patch_id from d`,
  );
  if (!row) throw new ApiError('NOT_FOUND', 'site not found');
  if (row.patch_id) await enqueueDeliveries(ctx, [row.patch_id]);
  return { id: row.id, created_at: new Date(row.created_at).toISOString(), env_names: row.env_names };
}
