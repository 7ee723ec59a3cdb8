/** The Access section of a database, bucket or auth app (contract §7): who reaches the service. */
import type { Kind } from '../domain/levels';
import { type CredentialKindName, kindOf } from '../kinds/registry';
import { apiRoute, json, z } from '../lib/openapi';
import { type AccessKind, accessListingOf, accessListingQuery } from '../use-cases/access/access-listing';
import { read } from '../use-cases/caller/declared-reads';
import { kindSchemaName, levelEnum, nullableLevelEnum } from './connection-schemas';
import { declaredRoutes, declareReads } from './declared-reads';
import { ProjectParam } from './shared';

/** A site in `kind`'s Access listing: its level of that kind, or null when not connected. */
const accessSiteSchema = (kind: Kind) =>
  z
    .object({ site_id: z.string(), site_slug: z.string(), level: nullableLevelEnum(kind) })
    .openapi(kindSchemaName(kind, 'AccessSite'));

/** A principal of a `kind` service as listed: never its secret. */
export const principalSummarySchema = (kind: CredentialKindName) =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      level: levelEnum(kind),
      allowed_sources: z.array(z.string()),
      expires_at: z.string().nullable(),
      expired: z
        .boolean()
        .openapi({ description: 'past expires_at; listed until the reconciler removes it' }),
      created_at: z.string(),
      state: z.enum(['pending', 'active']).openapi({
        description:
          'pending: allowed_sources are not enforced yet (the network policy naming them was not acknowledged), so it cannot log in; active: it can',
      }),
      username: z.string().optional().openapi({ description: 'database principals: the c_ user' }),
      access_key_id: z.string().optional().openapi({ description: 'bucket principals: the key id' }),
    })
    .openapi(kindSchemaName(kind, 'Principal'));

const RestrictedKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    capabilities: z.record(z.string(), z.unknown()),
    managed: z.boolean().openapi({ description: "true for a site's managed PLATFORM_API_KEY" }),
    site_id: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('RestrictedKey');

const principals = (kind: CredentialKindName) => ({
  extra: { principals: z.array(principalSummarySchema(kind)) },
  description:
    'Every site of the project with its level (null: not connected), and the live principals (never a secret; an expired one stays listed with `expired:true` until the reconciler removes it). One metadata round trip.',
});

/** Each kind's Access route: its path and what it lists beside the sites. */
const ROUTES: Array<{
  kind: AccessKind;
  segment: string;
  param: string;
  extra: Record<string, z.ZodTypeAny>;
  description: string;
}> = [
  { kind: 'database', segment: 'databases', param: 'dbId', ...principals('database') },
  { kind: 'bucket', segment: 'buckets', param: 'bucketId', ...principals('bucket') },
  {
    kind: 'auth_app',
    segment: 'auth-apps',
    param: 'authAppId',
    extra: { api_keys: z.array(RestrictedKeySchema) },
    description:
      'Every site of the project with its level (null: not connected), and the project keys whose `auth` capability names this app (managed site keys marked `managed:true`). One metadata round trip.',
  },
];

export const accessRoutes = declaredRoutes();

for (const { kind, segment, param, extra, description } of ROUTES) {
  // Accounts at the read role only: project API keys are refused (403).
  const listing = declareReads({ role: 'read' }, ({ http, path, project }) => ({
    answer: read(accessListingQuery(http, project, kind, path[param] ?? ''), (a) => accessListingOf(kind, a)),
  }));
  accessRoutes.openapi(
    apiRoute({
      method: 'get',
      path: `/projects/{id}/${segment}/{${param}}/access`,
      tags: ['access'],
      summary: `Who reaches this ${kindOf(kind).word} (read role)`,
      description,
      middleware: listing.middleware,
      request: { params: ProjectParam.extend({ [param]: z.string() }) },
      responses: {
        200: json(z.object({ sites: z.array(accessSiteSchema(kind)), ...extra }), 'the access listing'),
      },
    }),
    async (c) => c.json(listing.of(c).answer, 200),
  );
}
