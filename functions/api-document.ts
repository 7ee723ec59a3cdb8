/**
 * The management API's OpenAPI document, built from the route groups' schemas alone (no
 * console, no reference page, no bindings): what `GET /api/v1/openapi.json` serves and what
 * `npm run api:types` generates the API's TypeScript types from (types/api.d.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './app-env';
import { finishDocument } from './lib/openapi-document';
import { allRouteGroups } from './routes';
import { cliTokenRoutes } from './routes/cli-token';
import { kindsRoutes } from './routes/kinds';
import { oauthRoutes } from './routes/oauth';
import { pluginServicesRoutes } from './routes/plugin-services';

const INFO = {
  title: 'Tether management API',
  version: '1.0.0',
  description:
    'Connections between sites and services. Errors: {"error":{"code","message"}}, checked in the ' +
    'order 401 (credentials), 403 (a key or the operator where not allowed), 404 (the project), ' +
    '403 (the role), 404 (the site, service or auth app the path names), then 400 (the body).',
};

/** The document as served from `base` (its `servers`); the paths are the Worker's own. */
export async function apiDocument(base: string): Promise<Record<string, unknown>> {
  const app = new OpenAPIHono<AppEnv>();
  for (const group of await allRouteGroups()) app.route('/api/v1', group);
  app.route('/api/v1', pluginServicesRoutes());
  app.route('/api/v1', cliTokenRoutes);
  app.route('/api/v1', kindsRoutes);
  app.route('/v1', oauthRoutes);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  // An auth app's server key at its introspection endpoint, as client_secret_basic (user: the app_id).
  app.openAPIRegistry.registerComponent('securitySchemes', 'basic', { type: 'http', scheme: 'basic' });
  const doc = finishDocument(app.getOpenAPI31Document({ openapi: '3.1.0', info: INFO }), base);
  return doc as unknown as Record<string, unknown>;
}
