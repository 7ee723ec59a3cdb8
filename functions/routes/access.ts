/** The Access section of a database, bucket or auth app (contract §7): who reaches the service. */
import { type AppEnv, getHttpDb } from '../context';
import { kindOf } from '../kinds/registry';
import { apiRoute, json, routeGroup, z } from '../lib/openapi';
import { type AccessKind, accessListingOf, accessListingQuery } from '../services/access/listing';
import { projectIdOf } from '../services/caller/api-caller';
import { access, ProjectParam, readsCaller, readWithCaller } from './shared';

const AccessSiteSchema = z
  .object({ site_id: z.string(), site_slug: z.string(), level: z.string().nullable() })
  .openapi('AccessSite');

/** A principal as listed: never its secret. */
export const PrincipalSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    level: z.string(),
    allowed_sources: z.array(z.string()),
    expires_at: z.string().nullable(),
    expired: z.boolean().openapi({ description: 'past expires_at; listed until the reconciler removes it' }),
    created_at: z.string(),
    state: z.enum(['pending', 'active']).openapi({
      description:
        'pending: allowed_sources are not enforced yet (the network policy naming them was not acknowledged), so it cannot log in; active: it can',
    }),
    username: z.string().optional().openapi({ description: 'database principals: the c_ user' }),
    access_key_id: z.string().optional().openapi({ description: 'bucket principals: the key id' }),
  })
  .openapi('PrincipalSummary');

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

const PRINCIPALS = {
  extra: { principals: z.array(PrincipalSummarySchema) },
  description:
    'Every site of the project with its level (null: not connected), and the live principals (never a secret; an expired one stays listed with `expired:true` until the reconciler removes it). One metadata round trip.',
};

/** Each kind's Access route: its path and what it lists beside the sites. */
const ROUTES: Array<{
  kind: AccessKind;
  segment: string;
  param: string;
  extra: Record<string, z.ZodTypeAny>;
  description: string;
}> = [
  { kind: 'database', segment: 'databases', param: 'dbId', ...PRINCIPALS },
  { kind: 'bucket', segment: 'buckets', param: 'bucketId', ...PRINCIPALS },
  {
    kind: 'auth_app',
    segment: 'auth-apps',
    param: 'authAppId',
    extra: { api_keys: z.array(RestrictedKeySchema) },
    description:
      'Every site of the project with its level (null: not connected), and the project keys whose `auth` capability names this app (managed site keys marked `managed:true`). One metadata round trip.',
  },
];

export const accessRoutes = routeGroup<AppEnv>();

for (const { kind, segment, param, extra, description } of ROUTES) {
  accessRoutes.openapi(
    apiRoute({
      method: 'get',
      path: `/projects/{id}/${segment}/{${param}}/access`,
      tags: ['access'],
      summary: `Who reaches this ${kindOf(kind).word} (read role)`,
      description,
      middleware: [readsCaller],
      request: { params: ProjectParam.extend({ [param]: z.string() }) },
      responses: {
        200: json(z.object({ sites: z.array(AccessSiteSchema), ...extra }), 'the access listing'),
      },
    }),
    async (c) => {
      const params: Record<string, string | undefined> = c.req.param();
      const ref = params.id ?? '';
      const [answer] = await readWithCaller(c, [
        accessListingQuery(getHttpDb(c), projectIdOf(ref), kind, params[param] ?? ''),
      ]);
      // Accounts at the read role only: project API keys are refused (403).
      await access(c, ref, 'read');
      return c.json(accessListingOf(kind, answer), 200);
    },
  );
}
