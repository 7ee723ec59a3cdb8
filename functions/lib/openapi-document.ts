/**
 * The served OpenAPI document, finished for the tools that read it (generators, linters, API
 * clients): where it is served (`servers`), a contact, an `operationId` and a description on
 * every operation, its tags declared with what they hold, the auth service's public routes
 * marked `security: []`, and the headers its answers carry (`WWW-Authenticate` on a 401,
 * `Retry-After` on a 429 or 503, `Location` on a redirect), the 415 every auth-service POST
 * can answer, and the 503 every route answers when the metadata database cannot be reached or
 * refuses a connection for now. Routes keep declaring only what is
 * theirs; these are the same for every route, so they are added here once.
 */

/** What each tag holds, in the order a reader meets them. */
const TAGS: Array<[string, string]> = [
  ['accounts', 'Accounts, personal tokens and dashboard sessions'],
  ['projects', 'Projects, members and invitations'],
  ['api-keys', "Project API keys and the sites' managed keys"],
  ['sites', 'Sites (deployable apps) of a project'],
  ['databases', 'PostgreSQL and MongoDB databases'],
  ['buckets', 'S3 storage buckets'],
  ['auth-apps', 'Auth apps: providers, origins, end users'],
  ['connections', 'Connections between sites and services, at a level'],
  ['variables', "Sites' user-set and effective variables"],
  ['deploys', 'Deploys and rollbacks'],
  ['delivery', "Where a site's live patches go, and how they fared"],
  ['credentials', "Services' own credentials"],
  ['principals', 'Named principals that outside systems hold'],
  ['access', "Who can reach a service: sites, principals, the service's own credential"],
  ['tunnels', "A database tunnel for a site's developer"],
  ['activity', 'The record of every change'],
  ['auth service', 'The auth service apps sign their users in with (public: `{auth_url}/v1/{appSlug}`)'],
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Json = Record<string, unknown>;

/** `get /api/v1/projects/{id}/sites` -> `getProjectsByIdSites`: unique per method and path. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/(api\/)?v1\//, '')
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment)?.[1];
      return (param ? `by-${param}` : segment).split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

const HEADERS: Record<string, Record<string, Json>> = {
  '401': {
    'WWW-Authenticate': {
      description: 'the scheme to authenticate with: `Bearer`',
      schema: { type: 'string' },
    },
  },
  '429': {
    'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer' } },
  },
  '503': {
    'Retry-After': {
      description: 'seconds after which trying again may help, when known',
      schema: { type: 'integer' },
    },
  },
};
const UNSUPPORTED_MEDIA_TYPE = {
  description: 'the body is not of the media type the route takes (JSON; a form where the route says so)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } },
};
/** The 503 of a route that does not declare its own: the metadata database every route reads. */
const unavailable = (schema: 'Error' | 'OAuthError') => ({
  description:
    'the metadata database or an outside system could not be reached, or refused for now (a connection limit, a rate); nothing changed',
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const LOCATION = { Location: { description: 'where the browser goes next', schema: { type: 'string' } } };

/** `doc` finished as the module header says; `serverUrl` is the base the paths hang from. */
export function finishDocument<D extends object>(doc: D, serverUrl: string): D {
  const out: Json = structuredClone(doc) as Json;
  out.servers = [{ url: serverUrl, description: 'this Tether (`{base_url}`, also `{auth_url}`)' }];
  const info = (out.info ?? {}) as Json;
  info.contact ??= { name: 'Tether', url: serverUrl };
  out.info = info;
  out.security ??= [{ bearer: [] }];
  const used = new Set<string>();
  for (const [path, item] of Object.entries((out.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      op.operationId ??= operationIdOf(method, path);
      op.description ??= op.summary ?? operationIdOf(method, path);
      for (const tag of (op.tags ?? []) as string[]) used.add(tag);
      // The auth service's routes take no Bearer token of the management API.
      if (path.startsWith('/v1/')) op.security ??= [];
      // Its POSTs refuse a body of another media type (request-limits.ts, and a form route's validator).
      if (path.startsWith('/v1/') && method === 'post') {
        op.responses = { ...((op.responses ?? {}) as Json) };
        (op.responses as Json)['415'] ??= UNSUPPORTED_MEDIA_TYPE;
      }
      if (path !== '/api/v1/openapi.json') {
        op.responses = { ...((op.responses ?? {}) as Json) };
        (op.responses as Json)['503'] ??= unavailable(path.startsWith('/v1/') ? 'OAuthError' : 'Error');
      }
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        const extra = status.startsWith('3') ? LOCATION : HEADERS[status];
        if (extra) response.headers = { ...extra, ...((response.headers ?? {}) as Json) };
      }
    }
  }
  const declared = TAGS.filter(([name]) => used.has(name));
  const others = [...used].filter((name) => !TAGS.some(([t]) => t === name)).sort();
  out.tags = [
    ...declared.map(([name, description]) => ({ name, description })),
    ...others.map((name) => ({ name, description: `Routes of ${name}` })),
  ];
  return out as D;
}
