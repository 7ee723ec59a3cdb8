/** The user-set variables of a site, kept encrypted as one JSON document. */
import type { sites } from '../../db/schema';
import type { Config } from '../env';

/** Decrypts a site's user-set variables. */
export async function readUserVars(
  config: Config,
  site: typeof sites.$inferSelect,
): Promise<Record<string, string>> {
  if (!site.varsCiphertext) return {};
  return JSON.parse(await config.keyring.decrypt(site.varsCiphertext)) as Record<string, string>;
}
