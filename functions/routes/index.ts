/**
 * Every management route group, mounted under /api/v1 in this order, each imported on its first
 * request (management-app.ts): an isolate builds the schemas of the groups it serves and no
 * other. Which group serves which method and path is known before any is imported from
 * route-table.ts, generated from this list (`npm run routes:table`).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';

/** A route group's import. */
type GroupLoader = () => Promise<OpenAPIHono<AppEnv>>;

export const ROUTE_GROUPS = {
  accounts: () => import('./accounts').then((m) => m.accountsRoutes),
  'account-sessions': () => import('./account-sessions').then((m) => m.accountSessionsRoutes),
  cli: () => import('./cli').then((m) => m.cliRoutes),
  projects: () => import('./projects').then((m) => m.projectsRoutes),
  'project-health': () => import('./project-health').then((m) => m.projectHealthRoutes),
  invitations: () => import('./invitations').then((m) => m.invitationsRoutes),
  'api-keys': () => import('./api-keys').then((m) => m.apiKeysRoutes),
  sites: () => import('./sites').then((m) => m.sitesRoutes),
  databases: () => import('./databases').then((m) => m.databasesRoutes),
  buckets: () => import('./buckets').then((m) => m.bucketsRoutes),
  'auth-apps': () => import('./auth-apps').then((m) => m.authAppsRoutes),
  'auth-app-lifecycle': () => import('./auth-app-lifecycle').then((m) => m.authAppLifecycleRoutes),
  'site-variables': () => import('./site-variables').then((m) => m.envRoutes),
  connections: () => import('./connections').then((m) => m.connectionsRoutes),
  'connection-rotation': () => import('./connection-rotation').then((m) => m.rotationRoutes),
  'service-sites': () => import('./service-sites').then((m) => m.serviceSitesRoutes),
  deploys: () => import('./deploys').then((m) => m.deploysRoutes),
  tunnel: () => import('./tunnel').then((m) => m.tunnelRoutes),
  access: () => import('./access').then((m) => m.accessRoutes),
  'service-credentials': () => import('./service-credentials').then((m) => m.serviceCredentialsRoutes),
  principals: () => import('./principals').then((m) => m.principalsRoutes),
  activity: () => import('./activity').then((m) => m.activityRoutes),
  targets: () => import('./targets').then((m) => m.targetsRoutes),
} satisfies Record<string, GroupLoader>;

/** A management route group's name. */
export type RouteGroupName = keyof typeof ROUTE_GROUPS;

/** The app that serves a route: a route group's, or the base app (management-app.ts). */
export type RouteTarget = RouteGroupName | 'base';

/** Routes in the order the router tries them: each with the app that serves it, its method and its Hono path. */
export type RouteTable = ReadonlyArray<readonly [target: RouteTarget, method: string, path: string]>;

/** Every group's name, in mounting order. */
export const ROUTE_GROUP_NAMES = Object.keys(ROUTE_GROUPS) as RouteGroupName[];

/** Every group, imported, in mounting order (the OpenAPI document, the route table's generator). */
export const allRouteGroups = (): Promise<Array<OpenAPIHono<AppEnv>>> =>
  Promise.all(ROUTE_GROUP_NAMES.map((name) => ROUTE_GROUPS[name]()));
