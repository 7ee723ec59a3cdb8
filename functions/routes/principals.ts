/**
 * Named principals of databases and buckets (contract §7): outside systems' own credentials
 * with a level, an optional source allowlist and expiry, and their own revoke. Admin only.
 */
import { LEVELS } from '../domain/levels';
import { CREDENTIAL_KIND_NAMES, type CredentialKindName, credentialsOf, kindOf } from '../kinds/registry';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { liveTargetQuery, targetOf } from '../use-cases/access/live-target';
import {
  liveNamesQuery,
  principalQuery,
  principalsListingQuery,
  principalsOf,
} from '../use-cases/access/principal-reads';
import { rotatePrincipal } from '../use-cases/access/principal-rotation';
import { createPrincipal, revokePrincipal } from '../use-cases/access/principals';
import { type ReadScope, read, rowsRead } from '../use-cases/caller/declared-reads';
import { openRetirementsOf, openRetirementsQuery } from '../use-cases/credentials/retirements';
import { principalSummarySchema } from './access';
import { levelEnum } from './connection-schemas';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { GraceSecondsQuery } from './grace-seconds';
import { ProjectParam, requestContext, ServiceName } from './shared';

const SHOWN_FIELDS = {
  id: z.string(),
  name: z.string(),
  allowed_sources: z.array(z.string()),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  state: z.enum(['pending', 'active']).openapi({
    description:
      'pending: allowed_sources are not enforced yet (the network policy naming them was not acknowledged), so it cannot log in; active: it can',
  }),
};
/** The create body of a kind's principals: its level is documented as one of that kind's. */
const createBodyOf = (kind: CredentialKindName) =>
  CreateBody.extend({
    level: z
      .string()
      .max(20)
      .openapi({ enum: [...LEVELS[kind]] }),
  });

const CreateBody = z
  .object({
    name: ServiceName,
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

export const principalsRoutes = declaredRoutes();

// Each kind whose services hold credentials gets the same four routes, documented from its descriptor.
for (const kind of CREDENTIAL_KIND_NAMES) {
  const { idParam: param, shown, enforced, rotated, revoked } = credentialsOf(kind).principalDocs;
  const segment = kindOf(kind).plural;
  const levels = LEVELS[kind].map((l) => `\`${l}\``).join(' or ');
  const Shown = z.object({ ...SHOWN_FIELDS, level: levelEnum(kind), ...shown.fields }).openapi(shown.name);
  const Params = ProjectParam.extend({ [param]: z.string() });
  const ItemParams = Params.extend({ principalId: z.string() });
  const base = `/projects/{id}/${segment}/{${param}}/principals`;
  /** The service the path names, live, at admin. */
  const serviceRead = ({ http, path, project }: ReadScope) =>
    read(liveTargetQuery(http, project, kind, path[param] ?? ''), (rows) => targetOf(kind, rows));
  /** The service and principal `principalId` the path names, at admin: rotate's and revoke's one read. */
  const principalRead = declareReads({ role: 'admin' }, (scope) => ({
    target: serviceRead(scope),
    rows: rowsRead(principalQuery(scope.http, kind, scope.path[param] ?? '', scope.path.principalId ?? '')),
    retiring: read(
      openRetirementsQuery(scope.http, scope.path[param] ?? '', scope.path.principalId ?? ''),
      openRetirementsOf,
    ),
  }));
  /** The service's principals the path names, at admin. */
  const listingRead = declareReads({ role: 'admin' }, ({ http, path, project }) => ({
    principals: read(principalsListingQuery(http, project, kind, path[param] ?? ''), (answer) =>
      principalsOf(kind, answer),
    ),
  }));
  /** The service and its live principals' names, at admin: create's one read. */
  const creationRead = declareInputReads(
    { role: 'admin' },
    (scope, _name: string) => ({
      target: serviceRead(scope),
      named: rowsRead(liveNamesQuery(scope.http, kind, scope.path[param] ?? '')),
    }),
    (scope) => ({ target: serviceRead(scope) }),
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'post',
      path: base,
      tags: ['principals'],
      summary: `Create a named principal on the ${kind} (admin; the secret is shown once)`,
      description: `level: ${levels}. The systems enforce the expiry and the allowlist themselves (${enforced}). 409 NAME_TAKEN for a name in use on this ${kind}; 409 LIMIT_REACHED for a database already holding MAX_PRINCIPALS_PER_DATABASE (20) live principals; 503 with nothing changed when the admin side cannot be reached.`,
      middleware: creationRead.middleware,
      request: { params: Params, ...jsonBody(createBodyOf(kind)) },
      responses: {
        201: json(Shown, 'the principal with its secret (shown once)'),
        ...errorResponses(409, 503),
      },
    }),
    async (c) => {
      const input = c.req.valid('json');
      const { projectId, target, named } = await creationRead.run(c, input.name);
      return c.json(await createPrincipal(requestContext(c), projectId, target, input, named), 201);
    },
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'get',
      path: base,
      tags: ['principals'],
      summary: `The ${kind}'s principals, never a secret (admin)`,
      middleware: listingRead.middleware,
      request: { params: Params },
      responses: {
        200: json(z.object({ principals: z.array(principalSummarySchema(kind)) }), 'the principals'),
      },
    }),
    async (c) => c.json({ principals: listingRead.of(c).principals }, 200),
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'post',
      path: `${base}/{principalId}/rotate`,
      tags: ['principals'],
      summary: `Give a ${kind} principal a new secret${rotated} (admin; shown once)`,
      description: `The old secret ends at once (and so does one an earlier \`grace_seconds\` still keeps). With \`?grace_seconds=N\` (0 to 86400) it keeps working N seconds beside the new one, then the reconciler retires it (docs/contract.md §14): ${credentialsOf(kind).principalDocs.beside} 409 while an earlier grace still keeps an old secret (a credential keeps at most two).`,
      middleware: principalRead.middleware,
      request: { params: ItemParams, query: z.object({ grace_seconds: GraceSecondsQuery }) },
      responses: {
        200: json(Shown, 'the principal with its new secret (shown once)'),
        ...errorResponses(503),
      },
    }),
    async (c) => {
      const { target, rows, retiring } = principalRead.of(c);
      const grace = c.req.valid('query').grace_seconds;
      return c.json(await rotatePrincipal(requestContext(c), target, rows, retiring, grace), 200);
    },
  );

  principalsRoutes.openapi(
    apiRoute({
      method: 'delete',
      path: `${base}/{principalId}`,
      tags: ['principals'],
      summary: `Revoke a ${kind} principal (admin)`,
      description: `The credential stops working at once${revoked}; a second DELETE answers \`revoked:false\`. 404 for an id that never existed.`,
      middleware: principalRead.middleware,
      request: { params: ItemParams },
      responses: { 200: json(z.object({ revoked: z.boolean() }), 'revoked'), ...errorResponses(503) },
    }),
    async (c) => {
      const { target, rows, retiring } = principalRead.of(c);
      return c.json({ revoked: await revokePrincipal(requestContext(c), target, rows, retiring) }, 200);
    },
  );
}
