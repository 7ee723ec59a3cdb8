/** One auth app read, deleted or given a new server or signing key (contract §12), and its signing keys' status (§15). */
import { apiRoute, errorResponses, json, z } from '../lib/openapi';
import { readMany } from '../use-cases/caller/declared-reads';
import { serviceHoldersFrom, serviceHoldersQueries } from '../use-cases/connections/service-removal';
import { deleteAuthApp, rotateServerKey, rotateSigningKey } from '../use-cases/sign-in/app-lifecycle';
import { describeAuthApp } from '../use-cases/sign-in/manage-apps';
import { signingKeyStatus } from '../use-cases/sign-in/signing-key-status';
import { AuthAppSchema } from './auth-app-schemas';
import { AppParams, appRead } from './auth-apps';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { requestContext } from './shared';

export const authAppLifecycleRoutes = declaredRoutes();

/** The app, at read and at admin. */
const reader = declareReads({ role: 'read' }, appRead);
const admin = declareReads({ role: 'admin' }, appRead);
/** The app and the sites holding it, at admin: read in the handler, again when its write is retried. */
const withHolders = declareInputReads({ role: 'admin' }, (scope, _retry: undefined) => ({
  ...appRead(scope),
  holders: readMany(
    serviceHoldersQueries(scope.http, scope.project, 'auth_app', scope.path.authAppId ?? ''),
    serviceHoldersFrom,
  ),
}));

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/auth-apps/{authAppId}',
    tags: ['auth-apps'],
    summary: 'One auth app (no secrets)',
    middleware: reader.middleware,
    request: { params: AppParams },
    responses: { 200: json(AuthAppSchema, 'the auth app') },
  }),
  async (c) => {
    const { app } = reader.of(c);
    return c.json(await describeAuthApp(c.get('config'), app), 200);
  },
);

const SigningKeysSchema = z
  .object({
    current: z.object({ kid: z.string(), created_at: z.string() }).nullable(),
    next: z
      .object({
        kid: z.string(),
        published_at: z.string().openapi({ description: 'since when the JWKS serves it' }),
        ready_at: z.string().openapi({
          description:
            'published_at plus the JWKS max-age (300 s): from then every JWKS cache holds it, so a rotation refuses no token',
        }),
        becomes_current: z.literal('at_next_rotation').openapi({
          description: 'it signs nothing until POST …/signing-key/rotate makes it current',
        }),
      })
      .nullable()
      .openapi({ description: 'null for an app made before next keys, until its JWKS is first read' }),
    retired: z.array(
      z.object({
        kid: z.string(),
        retired_at: z.string(),
        published_until: z.string().openapi({ description: 'when its last token has expired' }),
      }),
    ),
  })
  .openapi('AuthAppSigningKeys');

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/auth-apps/{authAppId}/signing-keys',
    tags: ['auth-apps'],
    summary:
      "The app's signing keys: the current one, the published next one and when it can become current, the replaced ones",
    description:
      'No private half. The next key becomes current at the next POST …/signing-key/rotate; rotate after its ready_at.',
    middleware: reader.middleware,
    request: { params: AppParams },
    responses: { 200: json(SigningKeysSchema, 'the keys (kid and dates)') },
  }),
  (c) => {
    const { app } = reader.of(c);
    return c.json(signingKeyStatus(app.signingKeys, c.get('ctx').clock.now().getTime()), 200);
  },
);

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/auth-apps/{authAppId}',
    tags: ['auth-apps'],
    summary: 'Delete an auth app: its connections (with live patches), its end users and their sessions',
    description: 'Its app_id is free again at once. Admin role.',
    middleware: withHolders.middleware,
    request: { params: AppParams },
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(409) },
  }),
  async (c) => {
    await deleteAuthApp(requestContext(c), () => withHolders.run(c, undefined));
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
    middleware: withHolders.middleware,
    request: { params: AppParams },
    responses: { 200: json(z.object({ rotated: z.literal(true) }), 'rotated'), ...errorResponses(409) },
  }),
  async (c) => {
    await rotateServerKey(requestContext(c), () => withHolders.run(c, undefined));
    return c.json({ rotated: true as const }, 200);
  },
);

authAppLifecycleRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/auth-apps/{authAppId}/signing-key/rotate',
    tags: ['auth-apps'],
    summary: "A new key signs the app's access tokens; the JWKS keeps the old one until its tokens expired",
    middleware: admin.middleware,
    request: { params: AppParams },
    responses: { 200: json(z.object({ kid: z.string() }), 'the new key'), ...errorResponses(409) },
  }),
  async (c) => {
    const { app } = admin.of(c);
    const key = await rotateSigningKey(requestContext(c), { app });
    return c.json({ kid: key.kid }, 200);
  },
);
