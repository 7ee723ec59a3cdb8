/** The user-set variables of a site, kept encrypted as one JSON document. */
import type { HttpDb } from '../../db/client';
import type { SiteRow } from '../../db/rows';
import { sites } from '../../db/schema';
import type { Config } from '../config';
import { siteRef } from '../domain/names';
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
  db: HttpDb,
  config: Config,
  projectId: string,
  siteId: string,
  vars: Record<string, string>,
): Promise<boolean> {
  const updated = await db
    .update(sites)
    .set({ varsCiphertext: await config.keyring.encrypt(JSON.stringify(vars)) })
    .where(siteIs(projectId, siteRef(siteId)))
    .returning({ id: sites.id });
  return updated.length > 0;
}
