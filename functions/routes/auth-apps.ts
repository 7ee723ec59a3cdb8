/** Auth apps of a project and their end users (contract §4). */
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import type { Admitted } from '../use-cases/caller/admission';
import { type ReadScope, read, readMany, rowsRead } from '../use-cases/caller/declared-reads';
import type { ApiKeyCapabilities } from '../use-cases/caller/project-access';
import { creationReadFrom } from '../use-cases/resources/new-service-write';
import {
  deleteUser,
  listUsers,
  setUserDisabled,
  toListedUser,
  userFound,
  userQuery,
} from '../use-cases/sign-in/admin-users';
import { authAppIdOf, authAppQuery, listAuthApps } from '../use-cases/sign-in/app-reads';
import type { AuthAppRow } from '../use-cases/sign-in/apps';
import {
  type AppIdHolder,
  authAppCreationQueries,
  createAuthApp,
  describeAuthApp,
  toAuthAppBody,
  updateAuthApp,
} from '../use-cases/sign-in/manage-apps';
import { AdminUserSchema, AuthAppSchema, ListedUserSchema, PatchSchema } from './auth-app-schemas';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { ProjectParam, projectListingRoute, requestContext, ServiceName } from './shared';

/** The path parameters of one auth app. */
export const AppParams = ProjectParam.extend({ authAppId: z.string().min(1) });
const UserParams = AppParams.extend({ userId: z.string().min(1) });

/**
 * The auth app the path names (by id or app_id), read with the caller because a key's auth
 * capability names app ids: a key that does not name it is 403, and whether it exists is
 * revealed only after that (404).
 */
export const appRead = ({ http, path }: ReadScope) => ({
  app: read(authAppQuery(http, path.authAppId ?? ''), ([app], caller: Admitted): AuthAppRow => {
    const { principal } = caller;
    if (principal.type === 'api_key' && !(app && principal.capabilities.auth?.includes(app.id)))
      throw new ApiError('FORBIDDEN', 'this API key lacks the capability for this route');
    if (!app || !('project' in caller) || app.projectId !== caller.project.id)
      throw new ApiError('NOT_FOUND', 'auth app not found');
    return app;
  }),
});

/** A key may call an app's end-user routes when its auth capability names an app ({@link appRead} checks which). */
const namesAnApp = (caps: ApiKeyCapabilities) => (caps.auth?.length ?? 0) > 0;

/** A creation's read, at write: the apps holding the app_id asked for or in the project, and its only site. */
const creation = declareInputReads({ role: 'write' }, ({ http, project }, appId: string) => ({
  read: readMany(authAppCreationQueries(http, project, appId), creationReadFrom<AppIdHolder>),
}));
/** The project's auth apps, at read. */
const listing = declareReads({ role: 'read' }, ({ http, project }) => ({
  rows: rowsRead(listAuthApps(http, project)),
}));
/** The app, at write (an invalid body of an unknown app is 404, as its read comes first). */
const appWriter = declareReads({ role: 'write' }, appRead);
/** The app, at write or for a key naming it. */
const userWriter = declareReads({ role: 'write', keys: namesAnApp }, appRead);
/** The app and a page of its users (as the validated query asks), at write or for a key naming it. */
const usersListing = declareInputReads(
  { role: 'write', keys: namesAnApp },
  (scope, page: { limit: number; offset: number }) => ({
    ...appRead(scope),
    users: rowsRead(listUsers(scope.http, authAppIdOf(scope.path.authAppId ?? ''), page)),
  }),
  appRead,
);
/** The app and the user the path names, at write or for a key naming the app. */
const userRemoval = declareReads({ role: 'write', keys: namesAnApp }, (scope) => ({
  ...appRead(scope),
  user: read(
    userQuery(scope.http, authAppIdOf(scope.path.authAppId ?? ''), scope.path.userId ?? ''),
    userFound,
  ),
}));

export const authAppsRoutes = declaredRoutes();

authAppsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/auth-apps',
    tags: ['auth-apps'],
    summary: 'Create an auth app (connected to the only site of a one-site project)',
    middleware: creation.middleware,
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            app_id: ServiceName,
            name: z.string().trim().min(1).max(100).optional(),
          })
          .strict(),
      ),
    },
    responses: { 201: json(AuthAppSchema, 'the auth app'), ...errorResponses(409) },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const { projectId, read } = await creation.run(c, input.app_id);
    const row = await createAuthApp(requestContext(c), projectId, input, read);
    return c.json(toAuthAppBody(c.get('config'), row), 201);
  },
);

authAppsRoutes.openapi(
  projectListingRoute({
    path: '/projects/{id}/auth-apps',
    tag: 'auth-apps',
    summary: "The project's auth apps (no secrets)",
    middleware: listing.middleware,
    key: 'auth_apps',
    item: AuthAppSchema,
    listed: 'the auth apps',
  }),
  async (c) => {
    const { rows } = listing.of(c);
    const config = c.get('config');
    return c.json({ auth_apps: await Promise.all(rows.map((row) => describeAuthApp(config, row))) }, 200);
  },
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'patch',
    path: '/projects/{id}/auth-apps/{authAppId}',
    tags: ['auth-apps'],
    summary:
      'Change providers, allowed origins, app links, nonce rules, the user limit or enabled (secrets are never echoed)',
    description:
      "Changes only the fields it names (a provider's field left out keeps its value), written over the settings version it read, so two PATCHes at once both land. An https origin in `allowed_origins` of an app whose `app_links` name mobile apps must serve their association files (see `app_links`); the files are fetched before anything is written, and a refusal is 400 naming the origin and what its file lacks.",
    middleware: appWriter.middleware,
    request: { params: AppParams, ...jsonBody(PatchSchema) },
    responses: { 200: json(AuthAppSchema, 'the auth app'), ...errorResponses(503) },
  }),
  async (c) => {
    const { app } = appWriter.of(c);
    return c.json(await updateAuthApp(requestContext(c), { app, patch: c.req.valid('json') }), 200);
  },
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/auth-apps/{authAppId}/users',
    tags: ['auth-apps'],
    summary: "The app's end users (write role, or a key whose auth capability names this app)",
    request: {
      params: AppParams,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        offset: z.coerce.number().int().min(0).default(0),
      }),
    },
    middleware: usersListing.middleware,
    responses: { 200: json(z.object({ users: z.array(ListedUserSchema) }), 'the users') },
  }),
  async (c) => {
    const { users } = await usersListing.run(c, c.req.valid('query'));
    return c.json({ users: users.map(toListedUser) }, 200);
  },
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'patch',
    path: '/projects/{id}/auth-apps/{authAppId}/users/{userId}',
    tags: ['auth-apps'],
    summary: 'Disable or enable an end user (disabling ends their sessions)',
    middleware: userWriter.middleware,
    request: { params: UserParams, ...jsonBody(z.object({ disabled: z.boolean() }).strict()) },
    responses: { 200: json(AdminUserSchema, 'the user'), ...errorResponses(503) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { app } = userWriter.of(c);
    return c.json(
      await setUserDisabled(requestContext(c), {
        app,
        userId: params.userId,
        disabled: c.req.valid('json').disabled,
      }),
      200,
    );
  },
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/auth-apps/{authAppId}/users/{userId}',
    tags: ['auth-apps'],
    summary: 'Delete an end user with their sessions',
    middleware: userRemoval.middleware,
    request: { params: UserParams },
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(503) },
  }),
  async (c) => {
    const { app, user } = userRemoval.of(c);
    await deleteUser(requestContext(c), { app, userId: user });
    return c.json({ deleted: true as const }, 200);
  },
);
