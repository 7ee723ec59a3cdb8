/** The user-set variables of a site, kept encrypted as one JSON document. */
import { type SQL, sql } from 'drizzle-orm';
import { runBatch } from '../../db/client';
import type { SiteRow } from '../../db/rows';
import { sites } from '../../db/schema';
import type { Config } from '../config';
import { siteRef } from '../domain/names';
import type { RequestContext } from '../request-context';
import { activityQuery } from './activity';
import { siteIs } from './sites';

/** Decrypts a site's user-set variables. */
export async function readUserVars(config: Config, site: SiteRow): Promise<Record<string, string>> {
  if (!site.varsCiphertext) return {};
  return JSON.parse(await config.keyring.decrypt(site.varsCiphertext)) as Record<string, string>;
}

/**
 * Replaces the user-set variables of site `siteId` (its id or its slug) of the project, encrypted
 * as one document, in one statement; false when the project has no such site.
 */
export async function writeUserVars(
  ctx: RequestContext,
  { projectId, siteId, vars }: { projectId: string; siteId: string; vars: Record<string, string> },
): Promise<boolean> {
  const db = ctx.http;
  const config = ctx.config;
  const where = siteIs(projectId, siteRef(siteId));
  const site = (column: SQL) => sql`select ${column} from ${sites} where ${where}`;
  // The names only: a variable's value may be a secret.
  const event = {
    action: 'env.set',
    target: { type: 'site', id: site(sql`${sites.id}`), name: site(sql`${sites.slug}`) },
    projectId,
    siteId: site(sql`${sites.id}`),
    details: { names: Object.keys(vars).sort() },
  };
  const [updated] = await runBatch(db, [
    db
      .update(sites)
      .set({ varsCiphertext: await config.keyring.encrypt(JSON.stringify(vars)) })
      .where(where)
      .returning({ id: sites.id }),
    activityQuery(db, ctx.activity, event, sql`exists (${site(sql`1`)})`),
  ]);
  return (updated as unknown[]).length > 0;
}
