/**
 * The management API's OpenAPI document, built from the route groups' schemas alone (no
 * console, no reference page, no bindings): what `GET /api/v1/openapi.json` serves and what
 * `npm run api:types` generates the API's TypeScript types from (types/api.d.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context';
import { finishDocument } from './lib/openapi-document';
import { managementRoutes } from './routes';
import { cliTokenRoutes } from './routes/cli-token';
import { oauthRoutes } from './routes/oauth';

const INFO = {
  title: 'Tether management API',
  version: '1.0.0',
  description:
    'Connections between sites and services. Errors: {"error":{"code","message"}}, checked in the ' +
    'order 401 (credentials), 403 (a key or the operator where not allowed), 404 (the project), ' +
    '403 (the role), 404 (the site, service or auth app the path names), then 400 (the body).',
};

/** The document as served from `base` (its `servers`); the paths are the Worker's own. */
export function apiDocument(base: string): Record<string, unknown> {
  const app = new OpenAPIHono<AppEnv>();
  app.route('/api/v1', managementRoutes);
  app.route('/api/v1', cliTokenRoutes);
  app.route('/v1', oauthRoutes);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  const doc = finishDocument(app.getOpenAPI31Document({ openapi: '3.1.0', info: INFO }), base);
  return doc as unknown as Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** The document's paths as patterns with their methods, built once per isolate on first use. */
let pathMethods: Array<{ pattern: RegExp; methods: string[] }> | undefined;

/**
 * The methods the document gives `path` (a request path; `{param}` segments match any one
 * segment), upper-case and with HEAD beside GET, as a 405's `Allow` lists them; empty when no
 * path of the document matches.
 */
export function methodsOf(path: string): string[] {
  pathMethods ??= Object.entries(
    (apiDocument('').paths ?? {}) as Record<string, Record<string, unknown>>,
  ).map(([template, item]) => ({
    pattern: new RegExp(
      `^${template
        .split('/')
        .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
    ),
    methods: METHODS.filter((m) => m in item).map((m) => m.toUpperCase()),
  }));
  const found = new Set<string>();
  for (const { pattern, methods } of pathMethods)
    if (pattern.test(path)) for (const m of methods) found.add(m);
  // Hono answers HEAD with the GET route.
  if (found.has('GET')) found.add('HEAD');
  return ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH'].filter((m) => found.has(m));
}
