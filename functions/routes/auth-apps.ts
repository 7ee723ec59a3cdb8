/** Auth apps of a project and their end users (contract §4). */
import type { Context } from 'hono';
import { type AppEnv, getHttpDb } from '../context';
import { SERVICE_NAME_RE } from '../domain/names';
import type { Role } from '../domain/roles';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, pathBeforeBody, routeGroup, z } from '../lib/openapi';
import { type BatchQuery, projectIdOf } from '../services/caller/api-caller';
import { creationReadFrom } from '../services/resources/new-service-write';
import {
  deleteUser,
  listUsers,
  setUserDisabled,
  toListedUser,
  userFound,
  userQuery,
} from '../services/sign-in/admin-users';
import { authAppIdOf, authAppQuery, listAuthApps } from '../services/sign-in/app-reads';
import type { AuthAppRow } from '../services/sign-in/apps';
import {
  type AppIdHolder,
  authAppCreationQueries,
  createAuthApp,
  describeAuthApp,
  toAuthAppBody,
  updateAuthApp,
} from '../services/sign-in/manage-apps';
import { AdminUserSchema, AuthAppSchema, ListedUserSchema, PatchSchema } from './auth-app-schemas';
import {
  access,
  callerBeforeBody,
  callerBeforeMalformedJson,
  ProjectParam,
  readsCaller,
  readWithCaller,
  requestContext,
} from './shared';

/** The path parameters of one auth app. */
export const AppParams = ProjectParam.extend({ authAppId: z.string().min(1) });
const UserParams = AppParams.extend({ userId: z.string().min(1) });

/**
 * The caller and the auth app `params` names, read in one round trip with `queries` (whose
 * answers it returns), then the caller's access: the app is read with the caller because a
 * key's auth capability names app ids; whether it exists is revealed only after access passed.
 */
export async function appWith<T extends readonly BatchQuery[]>(
  c: Context<AppEnv>,
  params: { id: string; authAppId: string },
  role: Role,
  allowKey: boolean,
  queries: [...T],
): Promise<{ app: AuthAppRow; answers: { -readonly [K in keyof T]: Awaited<T[K]> } }> {
  const [[row], ...answers] = await readWithCaller(c, [
    authAppQuery(getHttpDb(c), params.authAppId),
    ...queries,
  ]);
  const app = await appAllowed(c, params, row, role, allowKey);
  return { app, answers: answers as { -readonly [K in keyof T]: Awaited<T[K]> } };
}

/** Checks the caller may reach `app`, the auth app `params` names, at `role` (or as a key naming it). */
async function appAllowed(
  c: Context<AppEnv>,
  params: { id: string; authAppId: string },
  app: AuthAppRow | undefined,
  role: Role,
  allowKey: boolean,
): Promise<AuthAppRow> {
  const keyMay = allowKey
    ? (caps: { auth?: string[] }) => app !== undefined && (caps.auth?.includes(app.id) ?? false)
    : undefined;
  const { project } = await access(c, params.id, role, keyMay);
  if (!app || app.projectId !== project.id) throw new ApiError('NOT_FOUND', 'auth app not found');
  return app;
}

/** A body that fails validation is 400 only for an auth app the caller may change. */
const appBeforeBody = (allowKey: boolean) =>
  pathBeforeBody<AppEnv>((c) => {
    const { id = '', authAppId = '' } = c.req.param();
    return appWith(c, { id, authAppId }, 'write', allowKey, []);
  });

/** The middleware of a write with a JSON body that reads its caller with the auth app. */
const appWriteMiddleware = [readsCaller, callerBeforeMalformedJson];

export const authAppsRoutes = routeGroup<AppEnv>();

authAppsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/auth-apps',
    tags: ['auth-apps'],
    summary: 'Create an auth app (connected to the only site of a one-site project)',
    middleware: appWriteMiddleware,
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            app_id: z.string().regex(SERVICE_NAME_RE, '1 to 63 of a-z 0-9 - _, starting with a letter'),
            name: z.string().trim().min(1).max(100).optional(),
          })
          .strict(),
      ),
    },
    responses: { 201: json(AuthAppSchema, 'the auth app'), ...errorResponses(409) },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const input = c.req.valid('json');
    // One read with the caller: the apps holding the app_id or in the project, and its only site.
    const answers = await readWithCaller(
      c,
      authAppCreationQueries(getHttpDb(c), projectIdOf(ref), input.app_id),
    );
    const { project } = await access(c, ref, 'write');
    const read = creationReadFrom<AppIdHolder>(answers);
    const row = await createAuthApp(requestContext(c), project.id, input, read);
    return c.json(toAuthAppBody(c.get('config'), row), 201);
  },
  callerBeforeBody,
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/auth-apps',
    tags: ['auth-apps'],
    summary: "The project's auth apps (no secrets)",
    middleware: [readsCaller],
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ auth_apps: z.array(AuthAppSchema) }), 'the auth apps') },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const [rows] = await readWithCaller(c, [listAuthApps(getHttpDb(c), projectIdOf(ref))]);
    await access(c, ref, 'read');
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
    middleware: appWriteMiddleware,
    request: { params: AppParams, ...jsonBody(PatchSchema) },
    responses: { 200: json(AuthAppSchema, 'the auth app'), ...errorResponses(503) },
  }),
  async (c) => {
    const { app } = await appWith(c, c.req.valid('param'), 'write', false, []);
    return c.json(await updateAuthApp(requestContext(c), { app, patch: c.req.valid('json') }), 200);
  },
  appBeforeBody(false),
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
    middleware: [readsCaller],
    responses: { 200: json(z.object({ users: z.array(ListedUserSchema) }), 'the users') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { answers } = await appWith(c, params, 'write', true, [
      listUsers(getHttpDb(c), authAppIdOf(params.authAppId), c.req.valid('query')),
    ]);
    return c.json({ users: answers[0].map(toListedUser) }, 200);
  },
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'patch',
    path: '/projects/{id}/auth-apps/{authAppId}/users/{userId}',
    tags: ['auth-apps'],
    summary: 'Disable or enable an end user (disabling ends their sessions)',
    middleware: appWriteMiddleware,
    request: { params: UserParams, ...jsonBody(z.object({ disabled: z.boolean() }).strict()) },
    responses: { 200: json(AdminUserSchema, 'the user'), ...errorResponses(503) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { app } = await appWith(c, params, 'write', true, []);
    return c.json(
      await setUserDisabled(requestContext(c), {
        app,
        userId: params.userId,
        disabled: c.req.valid('json').disabled,
      }),
      200,
    );
  },
  appBeforeBody(true),
);

authAppsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/auth-apps/{authAppId}/users/{userId}',
    tags: ['auth-apps'],
    summary: 'Delete an end user with their sessions',
    middleware: [readsCaller],
    request: { params: UserParams },
    responses: { 200: json(z.object({ deleted: z.literal(true) }), 'deleted'), ...errorResponses(503) },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { app, answers } = await appWith(c, params, 'write', true, [
      userQuery(getHttpDb(c), authAppIdOf(params.authAppId), params.userId),
    ]);
    await deleteUser(requestContext(c), { app, userId: userFound(answers[0]) });
    return c.json({ deleted: true as const }, 200);
  },
);
