/**
 * Named principals of databases and buckets (CONTRACT §7): outside systems' own credentials
 * with a level, an optional source allowlist and expiry, and their own revoke. Admin only.
 */
import type { Context } from 'hono';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { SERVICE_NAME_RE } from '../domain/names';
import type { PrincipalKind } from '../domain/principal-rules';
import { apiRoute, errorResponses, json, jsonBody, pathBeforeBody, routeGroup, z } from '../lib/openapi';
import { accessDeps, liveTarget } from '../services/access/deps';
import {
  createPrincipal,
  listPrincipals,
  revokePrincipal,
  rotatePrincipal,
} from '../services/access/principals';
import { PrincipalSummarySchema } from './access';
import { access, ProjectParam } from './shared';

const SHOWN_FIELDS = {
  id: z.string(),
  name: z.string(),
  level: z.string(),
  allowed_sources: z.array(z.string()),
  expires_at: z.string().nullable(),
  created_at: z.string(),
};
const ShownDatabasePrincipal = z
  .object({
    ...SHOWN_FIELDS,
    username: z.string().openapi({ description: 'c_ plus 8 characters' }),
    password: z.string(),
    url: z.string().openapi({ description: 'the connection string, from outside the platform' }),
  })
  .openapi('DatabasePrincipalShown');
const ShownBucketPrincipal = z
  .object({ ...SHOWN_FIELDS, access_key_id: z.string(), secret_access_key: z.string() })
  .openapi('BucketPrincipalShown');

const ROUTES: Array<{ kind: PrincipalKind; segment: string; param: string; levels: string }> = [
  { kind: 'database', segment: 'databases', param: 'dbId', levels: '`read-only` or `connect`' },
  { kind: 'bucket', segment: 'buckets', param: 'bucketId', levels: '`read` or `read-write`' },
];

const CreateBody = z
  .object({
    name: z.string().regex(SERVICE_NAME_RE, '1 to 63 of a-z 0-9 - _, starting with a letter'),
    level: z.string().max(20),
    allowed_sources: z.array(z.string().max(60)).max(50).optional().openapi({
      description: 'IPv4/IPv6 CIDRs (a bare address is /32 or /128); absent or empty: any source',
    }),
    expires_at: z
      .string()
      .max(40)
      .nullable()
      .optional()
      .openapi({ description: 'ISO 8601, in the future, at most one year ahead' }),
  })
  .strict();

export const principalsRoutes = routeGroup<AppEnv>();

for (const { kind, segment, param, levels } of ROUTES) {
  const Params = ProjectParam.extend({ [param]: z.string() });
  const ItemParams = Params.extend({ principalId: z.string() });
  const Shown = kind === 'database' ? ShownDatabasePrincipal : ShownBucketPrincipal;
  const base = `/projects/{id}/${segment}/{${param}}/principals`;
  /** The project at admin, the service's id from the path, and the services' dependencies. */
  const resolve = async (c: Context<AppEnv>) => {
    const params: Record<string, string | undefined> = c.req.param();
    const { project } = await access(c, params.id ?? '', 'admin');
    const deps = accessDeps(getDb(c), getHttpDb(c), c.get('services'));
    return {
      projectId: project.id,
      serviceId: params[param] ?? '',
      principalId: params.principalId ?? '',
      deps,
    };
  };

  principalsRoutes.openapi(
    apiRoute({
      method: 'post',
      path: base,
      tags: ['principals'],
      summary: `Create a named principal on the ${kind} (admin; the secret is shown once)`,
      description: `level: ${levels}. The systems enforce the expiry and the allowlist themselves (${
        kind === 'database'
          ? 'PostgreSQL VALID UNTIL and a host rule delivered with the network policy; MongoDB Atlas deleteAfterDate. A MongoDB principal takes no allowed_sources (400): Atlas has no per-user source restriction, only the project-wide IP access list'
          : 'IAM aws:CurrentTime and aws:SourceIp conditions'
      }). 409 NAME_TAKEN for a name in use on this ${kind}; 503 with nothing changed when the admin side cannot be reached.`,
      request: { params: Params, ...jsonBody(CreateBody) },
      responses: {
        201: json(Shown, 'the principal with its secret (shown once)'),
        ...errorResponses(409, 503),
      },
    }),
    async (c) => {
      const { projectId, serviceId, deps } = await resolve(c);
      return c.json(await createPrincipal(deps, projectId, kind, serviceId, c.req.valid('json')), 201);
    },
    pathBeforeBody<AppEnv>(async (c) => {
      const { projectId, serviceId, deps } = await resolve(c);
      await liveTarget(deps.reads, projectId, kind, serviceId);
    }),
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'get',
      path: base,
      tags: ['principals'],
      summary: `The ${kind}'s principals, never a secret (admin)`,
      request: { params: Params },
      responses: { 200: json(z.object({ principals: z.array(PrincipalSummarySchema) }), 'the principals') },
    }),
    async (c) => {
      const { projectId, serviceId, deps } = await resolve(c);
      return c.json({ principals: await listPrincipals(deps, projectId, kind, serviceId) }, 200);
    },
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'post',
      path: `${base}/{principalId}/rotate`,
      tags: ['principals'],
      summary: `Give a ${kind} principal a new secret${kind === 'bucket' ? ' (a new key pair)' : ''} (admin; shown once)`,
      request: { params: ItemParams },
      responses: {
        200: json(Shown, 'the principal with its new secret (shown once)'),
        ...errorResponses(503),
      },
    }),
    async (c) => {
      const { projectId, serviceId, principalId, deps } = await resolve(c);
      return c.json(await rotatePrincipal(deps, projectId, kind, serviceId, principalId), 200);
    },
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'delete',
      path: `${base}/{principalId}`,
      tags: ['principals'],
      summary: `Revoke a ${kind} principal (admin)`,
      description: `The credential stops working at once${kind === 'database' ? ' and its open sessions end' : ''}; a second DELETE answers \`revoked:false\`. 404 for an id that never existed.`,
      request: { params: ItemParams },
      responses: { 200: json(z.object({ revoked: z.boolean() }), 'revoked'), ...errorResponses(503) },
    }),
    async (c) => {
      const { projectId, serviceId, principalId, deps } = await resolve(c);
      return c.json({ revoked: await revokePrincipal(deps, projectId, kind, serviceId, principalId) }, 200);
    },
  );
}
