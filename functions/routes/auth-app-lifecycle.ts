/** One auth app read, deleted or given a new server or signing key (contract §12). */
import { type AppEnv, getDb, getHttpDb } from '../context';
import { apiRoute, errorResponses, json, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { retryOnConcurrentChange } from '../services/connections/retry';
import { serviceHoldersFrom, serviceHoldersQueries } from '../services/connections/service-removal';
import { deleteAuthApp, rotateServerKey, rotateSigningKey } from '../services/sign-in/app-lifecycle';
import { describeAuthApp } from '../services/sign-in/manage-apps';
import { AuthAppSchema } from './auth-app-schemas';
import { AppParams, appWith } from './auth-apps';
import { readsCaller, requestContext } from './shared';

export const authAppLifecycleRoutes = routeGroup<AppEnv>();

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/auth-apps/{authAppId}',
    tags: ['auth-apps'],
    summary: 'One auth app (no secrets)',
    middleware: [readsCaller],
    request: { params: AppParams },
    responses: { 200: json(AuthAppSchema, 'the auth app') },
  }),
  async (c) => {
    const { app } = await appWith(c, c.req.valid('param'), 'read', false, []);
    return c.json(await describeAuthApp(c.get('config'), app), 200);
  },
);

/** The app a path names and the sites holding it, read with the caller at `admin`. */
async function appAndHolders(
  c: Parameters<typeof requestContext>[0],
  params: { id: string; authAppId: string },
) {
  const db = getHttpDb(c);
  const { app, answers } = await appWith(
    c,
    params,
    'admin',
    false,
    serviceHoldersQueries(db, projectIdOf(params.id), 'auth_app', params.authAppId),
  );
  return { app, holders: serviceHoldersFrom(answers) };
}

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/auth-apps/{authAppId}',
    tags: ['auth-apps'],
    summary: 'Delete an auth app: its connections (with live patches), its end users and their sessions',
    description: 'Its app_id is free again at once. Admin role.',
    middleware: [readsCaller],
    request: { params: AppParams },
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(409) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    await retryOnConcurrentChange(getDb(c), async () => {
      const { app, holders } = await appAndHolders(c, params);
      await deleteAuthApp(requestContext(c), { app, holders });
    });
    return c.json({ deleted: true as const }, 200);
  },
);

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/auth-apps/{authAppId}/server-key/rotate',
    tags: ['auth-apps'],
    summary:
      'A new SERVICE_AUTH_SERVER_KEY, delivered to connected sites (reason rotate); the old one stops working',
    middleware: [readsCaller],
    request: { params: AppParams },
    responses: { 200: json(z.object({ rotated: z.literal(true) }), 'rotated'), ...errorResponses(409) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    await retryOnConcurrentChange(getDb(c), async () => {
      const { app, holders } = await appAndHolders(c, params);
      await rotateServerKey(requestContext(c), { app, holders });
    });
    return c.json({ rotated: true as const }, 200);
  },
);

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/auth-apps/{authAppId}/signing-key/rotate',
    tags: ['auth-apps'],
    summary: "A new key signs the app's access tokens; the JWKS keeps the old one until its tokens expired",
    middleware: [readsCaller],
    request: { params: AppParams },
    responses: { 200: json(z.object({ kid: z.string() }), 'the new key'), ...errorResponses(409) },
  }),
  async (c) => {
    const { app } = await appWith(c, c.req.valid('param'), 'admin', false, []);
    const key = await rotateSigningKey(requestContext(c), { app });
    return c.json({ kid: key.kid }, 200);
  },
);
