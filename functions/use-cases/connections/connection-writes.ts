/**
 * The writes of connections, one use case each: a site's (replace, connect, disconnect, rotate,
 * promote) and a service's sites (replace). Each reads the state, plans, applies the plan in
 * one guarded batch and answers, retried whole when a concurrent write moved it first. The read
 * is the route's (`readSite`, `readService`): its declared reads send it with the caller's
 * lookup, one round trip.
 */
import type { Kind } from '../../domain/levels';
import type { RequestContext } from '../../request-context';
import { applyPlan, type WriteRead } from './apply';
import { connectionKey, toConnectionObjects } from './model';
import { afterOf, type Plan } from './plan';
import { retryOnConcurrentChange } from './retry';
import { type DesiredSite, planServiceSites, serviceSitesAfter } from './service-plans';
import type { SiteContext } from './site-access';
import {
  type DesiredConnection,
  planConnect,
  planDisconnect,
  planPromote,
  planReplace,
  planRotate,
} from './site-plans';

/** What a write reads besides the site: the services it may name, and the connection it rotates. */
export interface WriteInput {
  resourceIds: string[];
  rotating?: string;
}

/** The route's read of the site for a write (with the caller's lookup the first time). */
export type ReadSite = (input: WriteInput) => Promise<{ ctx: SiteContext; read: WriteRead }>;

/** One connection of the site as the API shows it. */
type ConnectionObject = ReturnType<typeof toConnectionObjects>[number];

/**
 * Reads, plans and applies once per try; `answer` turns the applied plan into the route's
 * answer. Null when the plan finds nothing to do (a disconnect of no connection).
 */
function write<T>(
  ctx: RequestContext,
  readSite: ReadSite,
  input: WriteInput,
  plan: (site: SiteContext) => Plan | null,
  answer: (site: SiteContext, plan: Plan, inserted: Parameters<typeof afterOf>[2]) => T,
): Promise<T | null> {
  return retryOnConcurrentChange(ctx.db, async () => {
    const { ctx: site, read } = await readSite(input);
    const planned = plan(site);
    if (!planned) return null;
    const written = await applyPlan(ctx, planned, read);
    return answer(site, planned, written.inserted);
  });
}

/** The site's connection objects after `plan`. */
const objectsAfter = (site: SiteContext, plan: Plan, inserted: Parameters<typeof afterOf>[2]) =>
  toConnectionObjects(afterOf(plan, site.site.id, inserted));

/** The one connection of `kind` and `resourceId` among the objects after `plan`. */
const oneAfter =
  (kind: Kind, resourceId: string) =>
  (site: SiteContext, plan: Plan, inserted: Parameters<typeof afterOf>[2]): ConnectionObject => {
    const key = connectionKey(kind, resourceId.toLowerCase());
    return objectsAfter(site, plan, inserted).find(
      (o) => connectionKey(o.kind, o.resource_id) === key,
    ) as ConnectionObject;
  };

/** PUT: the site's whole set of connections becomes `desired`; answers the connections after. */
export const replaceConnections = (
  ctx: RequestContext,
  readSite: ReadSite,
  desired: readonly DesiredConnection[],
) =>
  write(
    ctx,
    readSite,
    { resourceIds: desired.map((d) => d.resource_id) },
    (site) => planReplace(site, desired),
    objectsAfter,
  );

/** POST: connects one service or changes its level; answers the stored connection. */
export const connect = (ctx: RequestContext, readSite: ReadSite, want: DesiredConnection & { kind: Kind }) =>
  write(
    ctx,
    readSite,
    { resourceIds: [want.resource_id] },
    (site) => planConnect(site, want),
    oneAfter(want.kind, want.resource_id),
  );

/** DELETE: disconnects one service; false when there was no such connection. */
export const disconnect = async (ctx: RequestContext, readSite: ReadSite, kind: Kind, resourceId: string) =>
  (await write(
    ctx,
    readSite,
    { resourceIds: [resourceId] },
    (site) => planDisconnect(site, kind, resourceId),
    () => true,
  )) ?? false;

/** POST …/rotate: a new secret for the connection's own credential, graceful unless `immediate`. */
export const rotateConnection = (
  ctx: RequestContext,
  readSite: ReadSite,
  kind: Kind,
  resourceId: string,
  options: { immediate: boolean; graceSeconds?: number },
) =>
  write(
    ctx,
    readSite,
    { resourceIds: [resourceId], rotating: resourceId },
    (site) => planRotate(site, kind, resourceId, options),
    () => undefined,
  );

/** POST …/promote: gives the connection its family's plain names; answers the connection. */
export const promote = (ctx: RequestContext, readSite: ReadSite, kind: Kind, resourceId: string) =>
  write(
    ctx,
    readSite,
    { resourceIds: [] },
    (site) => planPromote(site, kind, resourceId),
    (site, plan) => oneAfter(kind, resourceId)(site, plan, []),
  );

/** A service's read for a write of its sites (with the caller's lookup the first time). */
export type ReadService = () => Promise<{
  resource: Parameters<typeof planServiceSites>[1];
  projectId: string;
  scope: Parameters<typeof planServiceSites>[2];
  read: WriteRead;
}>;

/** PUT of a service's sites: the whole set of sites connected to it becomes `desired`; answers the sites after. */
export const replaceServiceSites = (
  ctx: RequestContext,
  readService: ReadService,
  desired: readonly DesiredSite[],
) =>
  retryOnConcurrentChange(ctx.db, async () => {
    const { resource, projectId, scope, read } = await readService();
    const plan = planServiceSites(projectId, resource, scope, desired);
    const written = await applyPlan(ctx, plan, read);
    return serviceSitesAfter(plan, resource, written.inserted);
  });
