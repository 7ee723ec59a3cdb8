/**
 * A connection's rotation as `GET …/connections/:kind/:resourceId/rotation` answers it
 * (docs/contract.md §14), read with the site in one round trip: `none` before any rotation,
 * `delivering` until the new secret's patch is live, `draining` until the old credential is
 * retired, then `done`. A patch confirmed live shows `draining` at once, before the reconciler
 * or the queue records it.
 */
import { sql } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import { siteRef } from '../../domain/names';
import { isUuid } from '../../lib/ids';
import { projectIdOf } from '../caller/api-caller';
import { DELIVERY_LIVE_AT } from '../credentials/rotations';

/** The states of a rotation, in order. */
export const ROTATION_STATES = ['none', 'delivering', 'draining', 'done'] as const;

/** The API's rotation object. */
export interface RotationObject {
  state: (typeof ROTATION_STATES)[number];
  immediate: boolean;
  started_at: string | null;
  live_at: string | null;
  retired_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
}

type RotationRow = {
  immediate: boolean;
  started_at: string;
  live_at: string | null;
  retired_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
  delivery_live_at: string | null;
};

/** The read of the rotation of site `siteId`'s connection to `resourceId` of `kind` in project `idOrSlug`. */
export function rotationQuery(db: HttpDb, path: Record<string, string>) {
  const ref = siteRef(path.siteId ?? '');
  const site =
    ref === null ? sql`false` : 'id' in ref ? sql`s.id = ${ref.id}::uuid` : sql`s.slug = ${ref.slug}`;
  const resource = path.resourceId ?? '';
  const connection = isUuid(resource)
    ? sql`c.kind = ${path.kind ?? ''} and c.resource_id = ${resource.toLowerCase()}::uuid`
    : sql`false`;
  return db.execute<RotationRow>(sql`
    select r.immediate, r.started_at, r.live_at, r.retired_at, r.retires_by, r.old_sessions,
           ${DELIVERY_LIVE_AT(sql`r`)} as delivery_live_at
      from connections c join sites s on s.id = c.site_id
      join connection_rotations r on r.connection_id = c.id
     where s.project_id = ${projectIdOf(path.id ?? '')} and ${site} and ${connection}`);
}

const iso = (t: string | Date | null) => (t === null ? null : new Date(t).toISOString());

/** The rotation object of a {@link rotationQuery} answer. */
export function rotationOf(answer: { rows: unknown[] }): RotationObject {
  const r = answer.rows[0] as RotationRow | undefined;
  if (!r)
    return {
      state: 'none',
      immediate: false,
      started_at: null,
      live_at: null,
      retired_at: null,
      retires_by: null,
      old_sessions: null,
    };
  const liveAt = r.live_at ?? r.delivery_live_at;
  const state = r.retired_at ? 'done' : liveAt ? 'draining' : 'delivering';
  return {
    state,
    immediate: r.immediate,
    started_at: iso(r.started_at),
    live_at: iso(liveAt),
    retired_at: iso(r.retired_at),
    retires_by: iso(r.retires_by),
    old_sessions: r.old_sessions,
  };
}
