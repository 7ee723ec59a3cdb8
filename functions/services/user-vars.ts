/** The user-set variables of a site, kept encrypted as one JSON document. */
import { eq } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import type { SiteRow } from '../../db/rows';
import { sites } from '../../db/schema';
import type { Config } from '../env';

/** Decrypts a site's user-set variables. */
export async function readUserVars(config: Config, site: SiteRow): Promise<Record<string, string>> {
  if (!site.varsCiphertext) return {};
  return JSON.parse(await config.keyring.decrypt(site.varsCiphertext)) as Record<string, string>;
}

/** Replaces a site's user-set variables, encrypted as one document. */
export async function writeUserVars(
  db: HttpDb,
  config: Config,
  siteId: string,
  vars: Record<string, string>,
): Promise<void> {
  await db
    .update(sites)
    .set({ varsCiphertext: await config.keyring.encrypt(JSON.stringify(vars)) })
    .where(eq(sites.id, siteId));
}
