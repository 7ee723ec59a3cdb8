/** The Activity events of a principal's changes and of a service's own credential rotated. */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import type { CredentialTarget } from '../credentials/connection-credential';

/** A principal as the event names it. */
interface NamedPrincipal {
  id: string;
  name: string;
  level: string;
}

/**
 * The statement recording `action` (`principal.create`, `.rotate`, `.revoke`) of `principal` on
 * `target`, when the row `principal.id` matches `state` at that point in the batch; none
 * without a source.
 */
export function principalEvent(
  ctx: RequestContext,
  db: Queryable,
  action: string,
  target: CredentialTarget,
  principal: NamedPrincipal,
  state: SQL,
): BatchQuery[] {
  if (!ctx.activity) return [];
  const event = {
    action,
    target: { type: 'principal', id: principal.id, name: principal.name },
    projectId: target.resource.projectId,
    details: {
      kind: target.kind,
      resource_id: target.resource.id,
      resource_name: target.resource.name,
      level: principal.level,
    },
  };
  const when = sql`exists (select 1 from principals where id = ${principal.id}::uuid and ${state})`;
  return [activityQuery(db, ctx.activity, event, when)];
}

/** The statement recording `credential.rotate` of a service's own credential, when `stored` holds. */
export function serviceCredentialEvent(
  ctx: RequestContext,
  target: CredentialTarget,
  stored: SQL,
): BatchQuery[] {
  if (!ctx.activity) return [];
  const { resource } = target;
  const event = {
    action: 'credential.rotate',
    target: { type: target.kind, id: resource.id, name: resource.name },
    projectId: resource.projectId,
  };
  return [activityQuery(ctx.http, ctx.activity, event, stored)];
}
