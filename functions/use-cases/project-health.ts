/**
 * What needs attention in a project (`GET /projects/:id/health`, the console's Health card):
 * the sites whose live patches failed a try or went dead (the Delivery tab retries them), and
 * the rotations not yet done, `delivering` until the new secret's patch is live, then
 * `draining` until the old secret is retired (docs/contract.md §14). One statement, sent with
 * the caller's lookup.
 */
import { sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import type { CredentialKindName } from '../kinds/registry';
import { projectServices } from '../kinds/service-sql';
import { projectIdOf } from './caller/api-caller';
import { DELIVERY_LIVE_AT } from './credentials/rotations';

/** A site whose live patches are failing, as the health answer lists it. */
export interface FailingDeliveries {
  site_id: string;
  site_slug: string;
  /** Patches that failed a try and are being retried. */
  failed: number;
  /** Patches that gave up (Retry sends them again). */
  dead: number;
  /** The newest failing patch's error. */
  last_error: string | null;
  /** When the newest failing patch was made. */
  latest_at: string;
}

/** A rotation not yet done, as the health answer lists it. */
export interface OpenRotation {
  site_id: string;
  site_slug: string;
  kind: CredentialKindName;
  resource_id: string;
  /** The service's name; null once it is gone. */
  resource_name: string | null;
  state: 'delivering' | 'draining';
  started_at: string;
  live_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
}

/** The health answer. */
export interface ProjectHealth {
  deliveries: FailingDeliveries[];
  rotations: OpenRotation[];
}

type Row = {
  deliveries: (Omit<FailingDeliveries, 'failed' | 'dead'> & {
    failed: number | string;
    dead: number | string;
  })[];
  rotations: Omit<OpenRotation, 'state'>[];
};

/** The read of project `ref`'s failing deliveries (per site, newest first) and open rotations (oldest first). */
export function projectHealthQuery(db: HttpDb, ref: string) {
  const project = projectIdOf(ref);
  return db.execute<Row>(sql`
    select
      (select coalesce(json_agg(f order by f.latest_at desc, f.site_slug), '[]') from (
         select s.id as site_id, s.slug as site_slug,
                count(*) filter (where d.status = 'pending') as failed,
                count(*) filter (where d.status = 'dead') as dead,
                (array_agg(d.last_error order by d.created_at desc, d.id desc))[1] as last_error,
                max(d.created_at) as latest_at
           from deliveries d join sites s on s.id = d.target_id
          where d.project_id = ${project} and d.kind = 'runtime_patch'
            and (d.status = 'dead' or (d.status = 'pending' and d.last_error is not null))
          group by s.id, s.slug) f) as deliveries,
      (select coalesce(json_agg(o order by o.started_at, o.site_slug), '[]') from (
         select r.site_id, s.slug as site_slug, r.kind, r.resource_id, svc.name as resource_name,
                r.started_at, r.retires_by,
                r.old_sessions, coalesce(r.live_at, ${DELIVERY_LIVE_AT(sql`r`)}) as live_at
           from connection_rotations r join sites s on s.id = r.site_id
           left join (${projectServices(sql`${project}::uuid`)}) svc on svc.kind = r.kind and svc.id = r.resource_id
          where r.project_id = ${project} and r.retired_at is null) o) as rotations`);
}

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** The health answer of a {@link projectHealthQuery} answer. */
export function projectHealthOf(answer: { rows: Row[] }): ProjectHealth {
  const row = answer.rows[0] ?? { deliveries: [], rotations: [] };
  return {
    deliveries: row.deliveries.map((d) => ({
      site_id: d.site_id,
      site_slug: d.site_slug,
      failed: Number(d.failed),
      dead: Number(d.dead),
      last_error: d.last_error,
      latest_at: iso(d.latest_at) as string,
    })),
    rotations: row.rotations.map((r) => ({
      site_id: r.site_id,
      site_slug: r.site_slug,
      kind: r.kind,
      resource_id: r.resource_id,
      resource_name: r.resource_name,
      state: r.live_at ? 'draining' : 'delivering',
      started_at: iso(r.started_at) as string,
      live_at: iso(r.live_at),
      retires_by: iso(r.retires_by),
      old_sessions: r.old_sessions,
    })),
  };
}
