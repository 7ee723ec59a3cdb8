/**
 * What a site's routes (connections, deploys, delivery) declare: the caller's need on the
 * site's project, project API keys refused first (a site's managed key is minted from its
 * connections, so a key able to change them could widen its own powers), and the read of the
 * site the path names with its connections and the project's services.
 */
import type { Role } from '../domain/roles';
import { type ReadScope, read } from '../use-cases/caller/declared-reads';
import { siteOfAnswer, siteReadQuery } from '../use-cases/connections/site-access';

/** A site route's need at `role`: keys are refused before the project is looked at. */
export const siteNeed = <R extends Role>(role: R) =>
  ({ role, keyRefusal: "project API keys cannot use a site's connection or deploy routes" }) as const;

/** The site `:siteId` names in project `:id`, with its connections (404 after the caller's refusals). */
export const siteRead = ({ http, path }: ReadScope) => ({
  site: read(siteReadQuery(http, path.id ?? '', path.siteId ?? ''), siteOfAnswer),
});
