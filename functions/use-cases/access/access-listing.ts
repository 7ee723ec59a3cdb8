/**
 * The Access listing of a database, bucket or auth app (contract §7): every site of the project
 * with its level (null when not connected), plus the service's live principals (database,
 * bucket) or the project keys restricted to it (auth app). The service and everything listed
 * come back in one SQL statement sent with the caller's lookup; checks then run in the API's
 * order (401, 403 for keys, 404 project, 403 role, 404 service).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import type { ApiKeyCapabilities } from '../../../db/schema';
import type { Kind } from '../../domain/levels';
import { type CredentialKindName, credentialsOf, hasCredential, kindOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';

/** A service with an Access listing (every kind has one). */
export type AccessKind = Kind;

/** One site of the project and its level on the service. */
export interface AccessSite {
  site_id: string;
  site_slug: string;
  level: string | null;
}

/** A principal as listings show it: never a secret. */
export interface PrincipalSummary {
  id: string;
  name: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  expired: boolean;
  created_at: string;
  /** `pending` until its allowed sources are enforced (it cannot log in meanwhile), then `active`. */
  state: 'pending' | 'active';
  username?: string;
  access_key_id?: string;
}

/** A project key whose `auth` capability names the auth app. */
export interface RestrictedKey {
  id: string;
  name: string;
  capabilities: ApiKeyCapabilities;
  managed: boolean;
  site_id: string | null;
  created_at: string;
}

/** The answer of GET …/access. */
export type AccessListing =
  | { sites: AccessSite[]; principals: PrincipalSummary[] }
  | { sites: AccessSite[]; api_keys: RestrictedKey[] };

/** The statement selecting a live service of `kind` by id (the id follows). */
function serviceSelect(kind: AccessKind): SQL {
  const { table, softDeleted } = kindOf(kind);
  return sql.raw(
    `select d.id from ${table} d where ${softDeleted ? 'd.deleted_at is null and ' : ''}d.id = `,
  );
}

/** A principal row as the listing statements return it. */
export type PrincipalTuple = [string, string, string, string[], string | null, string, string, string];
type KeyTuple = [string, string, ApiKeyCapabilities, string | null, string];

const isoOf = (value: string): string => new Date(value).toISOString();

/** Turns a principal row (as JSON) into its listing shape; `now` decides `expired`. */
export function principalSummary(
  kind: CredentialKindName,
  [id, name, level, sources, expiresAt, createdAt, credentialName, state]: PrincipalTuple,
  now = Date.now(),
): PrincipalSummary {
  const expires = expiresAt ? isoOf(expiresAt) : null;
  return {
    id,
    name,
    level,
    allowed_sources: sources,
    expires_at: expires,
    expired: expires !== null && Date.parse(expires) <= now,
    created_at: isoOf(createdAt),
    state: state === 'pending' ? 'pending' : 'active',
    [credentialsOf(kind).credentialField]: credentialName,
  };
}

/** The SQL that aggregates a service's live principals as {@link PrincipalTuple}s. */
export const livePrincipalsJson = (kind: CredentialKindName, serviceId: SQL): SQL => sql`
  (select json_agg(json_build_array(x.id, x.name, x.level, x.allowed_sources, x.expires_at, x.created_at,
                                    x.credential_name, x.state) order by x.created_at, x.name)
     from principals x where x.kind = ${kind} and x.resource_id = ${serviceId} and x.revoked_at is null)`;

/** The row of {@link accessListingQuery}. */
type ListingRow = {
  service: string | null;
  sites: Array<[string, string, string | null]> | null;
  extra: PrincipalTuple[] | KeyTuple[] | null;
};

/**
 * The Access listing of service `serviceId` of the project `projectId` names, as one statement
 * not yet sent: it goes with the caller's lookup (a route's declared reads, routes/declared-reads.ts), and its
 * answer is read by {@link accessListingOf} once the caller is admitted at the read role.
 */
export function accessListingQuery(db: HttpDb, projectId: SQL, kind: AccessKind, serviceId: string) {
  const service = isUuid(serviceId) ? serviceId.toLowerCase() : null;
  // A kind without credentials of its own lists the project keys restricted to the service instead.
  const extra = !hasCredential(kind)
    ? sql`(select json_agg(json_build_array(k.id, k.name, k.capabilities, k.site_id, k.created_at)
                             order by k.created_at, k.name)
               from api_keys k
              where k.project_id = (select id from p) and k.revoked_at is null
                and k.capabilities -> 'auth' @> jsonb_build_array((select id from svc)::text))`
    : livePrincipalsJson(kind, sql`(select id from svc)`);
  return db.execute<ListingRow>(sql`
    with p as (select ${projectId} as id),
    svc as (${serviceSelect(kind)}${service}::uuid and d.project_id = (select id from p))
    select
      (select id from svc) as service,
      (select json_agg(json_build_array(s.id, s.slug, c.level) order by s.created_at, s.slug)
         from sites s
         left join connections c on c.site_id = s.id and c.kind = ${kind} and c.resource_id = (select id from svc)
        where s.project_id = (select id from p)) as sites,
      ${extra} as extra`);
}

/** The listing from the answer of {@link accessListingQuery}; 404 when the service is not the project's. */
export function accessListingOf(kind: AccessKind, answer: { rows: ListingRow[] }): AccessListing {
  const [row] = answer.rows;
  if (!row?.service) throw new ApiError('NOT_FOUND', `${kindOf(kind).word} not found`);
  const sites = (row.sites ?? []).map(([site_id, site_slug, level]) => ({ site_id, site_slug, level }));
  if (!hasCredential(kind)) {
    const keys = (row.extra ?? []) as KeyTuple[];
    return {
      sites,
      api_keys: keys.map(([id, name, capabilities, siteId, createdAt]) => ({
        id,
        name,
        capabilities,
        managed: siteId !== null,
        site_id: siteId,
        created_at: isoOf(createdAt),
      })),
    };
  }
  const now = Date.now();
  const tuples = (row.extra ?? []) as PrincipalTuple[];
  return { sites, principals: tuples.map((t) => principalSummary(kind, t, now)) };
}
