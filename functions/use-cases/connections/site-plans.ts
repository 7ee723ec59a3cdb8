/**
 * Plans for one site's connections: connect (or change level), disconnect, replace the whole
 * set, rotate. Each validates first and throws the API's 4xx before anything is touched.
 */
import {
  type DesiredLevel,
  type Kind,
  type KindLevel,
  levelOrDefault,
  levelRank,
  storedLevel,
} from '../../domain/levels';
import { CREDENTIAL_KIND_NAMES, hasCredential, kindOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { type ConnectionInfo, connectionKey, type ResourceInfo } from './model';
import { emptyPlan, type Plan } from './plan';
import type { SiteContext } from './site-access';

/**
 * One entry of a desired set: `{kind, resource_id, level?}`, the level one of the kind's (the
 * route's schema parsed it so).
 */
export type DesiredConnection = { resource_id: string } & DesiredLevel;

/** The project's service `resourceId` of `kind`, or 400 (another project's, or none). */
export function resourceFor(ctx: SiteContext, kind: Kind, resourceId: string, field: string): ResourceInfo {
  const id = resourceId.toLowerCase();
  // A body names services by id only; a name is a path's shorthand (use-cases/resources/by-name.ts).
  if (!isUuid(id))
    throw new ApiError(
      'BAD_REQUEST',
      `${field}: must be the ${kindOf(kind).word}'s id (a UUID), not ${JSON.stringify(resourceId)}; its name works in paths only`,
      field,
    );
  const resource = ctx.resources.find((r) => r.kind === kind && r.id === id);
  if (!resource)
    throw new ApiError(
      'BAD_REQUEST',
      `${field}: no ${kindOf(kind).word} ${resourceId} in this project`,
      field,
    );
  return resource;
}

/** The site's connection to a service, if any. */
export function findConnection(ctx: SiteContext, kind: Kind, resourceId: string): ConnectionInfo | undefined {
  const id = resourceId.toLowerCase();
  return ctx.connections.find((c) => c.kind === kind && c.resourceId === id);
}

function refuseDisabled(resource: ResourceInfo, field: string): void {
  if (!resource.available)
    throw new ApiError('BAD_REQUEST', `${field}: auth app ${resource.name} is disabled`, field);
}

/** Queues a level change of an existing connection; a disabled auth app's may go down, never up. */
function changeLevel(
  plan: Plan,
  existing: ConnectionInfo,
  resource: ResourceInfo,
  grant: KindLevel,
  field: string,
) {
  if (existing.level === grant.level) return;
  if (levelRank(grant) > levelRank(storedLevel(existing))) refuseDisabled(resource, field);
  plan.levels.push({ conn: existing, grant });
}

/**
 * POST: connect one service, or change the level of its connection. Without a level, a new
 * connection gets the kind's default and an existing one keeps its level (connecting again
 * changes nothing).
 */
export function planConnect(ctx: SiteContext, want: DesiredConnection): Plan {
  const resource = resourceFor(ctx, want.kind, want.resource_id, 'resource_id');
  const grant = levelOrDefault(want);
  const plan = emptyPlan(ctx.project.id, ctx.connections);
  const existing = findConnection(ctx, want.kind, resource.id);
  if (existing) {
    if (want.level !== undefined) changeLevel(plan, existing, resource, grant, 'level');
    return plan;
  }
  refuseDisabled(resource, 'resource_id');
  plan.adds.push({ siteId: ctx.site.id, siteSlug: ctx.site.slug, resource, grant });
  return plan;
}

/**
 * DELETE: disconnect one service; null when there is no such connection, including an id the
 * project has no service for (docs/connections.md: the transition "no connection → DELETE → no
 * connection": removed false, not an error). A name that resolved to nothing
 * (use-cases/resources/by-name.ts leaves it as it is) names no resource id: 404.
 */
export function planDisconnect(ctx: SiteContext, kind: Kind, resourceId: string): Plan | null {
  const id = resourceId.toLowerCase();
  if (!isUuid(id) && !ctx.resources.some((r) => r.kind === kind && r.id === id))
    throw new ApiError('NOT_FOUND', `no ${kindOf(kind).word} ${resourceId} in this project`);
  const existing = findConnection(ctx, kind, resourceId);
  if (!existing) return null;
  return { ...emptyPlan(ctx.project.id, ctx.connections), removes: [existing] };
}

/** PUT: the whole desired set, validated whole before anything happens. */
export function planReplace(ctx: SiteContext, desired: readonly DesiredConnection[]): Plan {
  const plan = emptyPlan(ctx.project.id, ctx.connections);
  const seen = new Set<string>();
  desired.forEach((want, i) => {
    const field = `connections[${i}]`;
    const resource = resourceFor(ctx, want.kind, want.resource_id, `${field}.resource_id`);
    const grant = levelOrDefault(want);
    const key = connectionKey(want.kind, resource.id);
    if (seen.has(key))
      throw new ApiError('BAD_REQUEST', `${field}: ${want.kind} ${resource.id} is listed twice`, field);
    seen.add(key);
    const existing = findConnection(ctx, want.kind, resource.id);
    if (existing) {
      changeLevel(plan, existing, resource, grant, `${field}.level`);
      return;
    }
    refuseDisabled(resource, `${field}.resource_id`);
    plan.adds.push({ siteId: ctx.site.id, siteSlug: ctx.site.slug, resource, grant });
  });
  plan.removes = ctx.connections.filter((c) => !seen.has(connectionKey(c.kind, c.resourceId)));
  return plan;
}

/**
 * Rotate: a new secret for the connection's own credential only; graceful unless `immediate`
 * (docs/contract.md §14). A graceful rotate while the last one still retires its old credential
 * is 409 naming it: a third login or a bucket user's third key is never made. `graceSeconds`
 * (`?grace_seconds=N`) sets its deadline instead of ROTATION_GRACE_SECONDS.
 */
export function planRotate(
  ctx: SiteContext,
  kind: Kind,
  resourceId: string,
  { immediate = false, graceSeconds }: { immediate?: boolean; graceSeconds?: number } = {},
): Plan {
  if (immediate && graceSeconds !== undefined) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'grace_seconds: an immediate rotate refuses the old secret at once; leave out grace_seconds or immediate=true',
      'grace_seconds',
    );
  }
  if (!hasCredential(kind)) {
    throw new ApiError(
      'BAD_REQUEST',
      `kind: only ${CREDENTIAL_KIND_NAMES.join(' and ')} connections have a credential to rotate`,
      'kind',
    );
  }
  const existing = findConnection(ctx, kind, resourceId);
  if (!existing) throw new ApiError('NOT_FOUND', `${kindOf(kind).word} connection not found`);
  if (existing.credentialMode !== 'own' || !existing.credentialName) {
    throw new ApiError(
      'SHARED_CREDENTIAL',
      "this connection is served by the service's shared credential; retrying cannot help, rotate on the service itself",
    );
  }
  if (existing.retiringName && !immediate) {
    throw new ApiError(
      'CONFLICT',
      `the last rotation of this connection still retires its old credential ${existing.retiringName} (a ${kindOf(kind).word} credential keeps at most two secrets, the old one until the new one is live): wait until GET …/rotation says done, or rotate with ?immediate=true to refuse both old secrets at once; nothing was changed`,
    );
  }
  return { ...emptyPlan(ctx.project.id, ctx.connections), rotates: [existing], immediate, graceSeconds };
}

/** Promote: the connection takes its family's plain names (contract §9); a no-op when it holds them. */
export function planPromote(ctx: SiteContext, kind: Kind, resourceId: string): Plan {
  const existing = findConnection(ctx, kind, resourceId);
  if (!existing) throw new ApiError('NOT_FOUND', `${kindOf(kind).word} connection not found`);
  const plan = emptyPlan(ctx.project.id, ctx.connections);
  if (!existing.holdsPlain) plan.promotes.push(existing);
  return plan;
}
