/** Where a site's local tunnel to one of its databases may lead (`tether connect --local`). */

import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import type { Adapters } from '../adapters';
import { servePostgresTunnel, type TunnelTarget } from '../adapters/postgres-tunnel';
import type { Config } from '../config';
import { siteRef } from '../domain/names';
import { engineOf } from '../kinds/registry';
import { ApiError } from '../lib/errors';
import { isUuid } from '../lib/ids';

/** The row of {@link tunnelQuery}. */
interface TunnelRow {
  site_id: string | null;
  database_id: string | null;
  engine: string | null;
  physical_name: string | null;
  connection_id: string | null;
}

/**
 * One statement, sent with the caller's lookup: site `siteId` (id or slug) of the project whose
 * id `projectId` gives, its database `dbId` (live) and the connection between them. Read it
 * with {@link tunnelTarget}.
 */
export function tunnelQuery(db: HttpDb, projectId: SQL, siteId: string, dbId: string) {
  const ref = siteRef(siteId);
  const site =
    ref === null ? sql`false` : 'id' in ref ? sql`st.id = ${ref.id}::uuid` : sql`st.slug = ${ref.slug}`;
  const database = isUuid(dbId) ? sql`d.id = ${dbId.toLowerCase()}::uuid` : sql`false`;
  return db.execute<Record<string, unknown>>(sql`
    with pr as (select ${projectId} as id),
    st as (select st.id from sites st where st.project_id = (select id from pr) and ${site}),
    d as (select d.id, d.engine, d.physical_name from databases d
           where d.project_id = (select id from pr) and d.deleted_at is null and ${database})
    select (select id from st) as site_id, (select id from d) as database_id,
           (select engine from d) as engine, (select physical_name from d) as physical_name,
           (select c.id from connections c where c.kind = 'database' and c.resource_id = (select id from d)
              and c.site_id = (select id from st) limit 1) as connection_id`);
}

/**
 * The target of a tunnel (`answer`: of {@link tunnelQuery}): only a live PostgreSQL database of
 * the project that the site is connected to; anything else is refused, in the order site,
 * database, connection, engine.
 */
export function tunnelTarget(config: Config, adapters: Adapters, answer: { rows: unknown[] }): TunnelTarget {
  const row = answer.rows[0] as TunnelRow | undefined;
  if (!row?.site_id) throw new ApiError('NOT_FOUND', 'site not found');
  if (!row.database_id || !row.physical_name) throw new ApiError('NOT_FOUND', 'database not found');
  if (!row.connection_id)
    throw new ApiError('NOT_FOUND', 'connection of this site to the database not found');
  const engine = row.engine ? engineOf(row.engine) : undefined;
  if (!engine?.tunnelEndpoint) throw new ApiError('BAD_REQUEST', 'tunnels reach PostgreSQL databases only');
  return { ...engine.tunnelEndpoint({ config, adapters }), database: row.physical_name };
}

/** Carries the PostgreSQL wire protocol between the accepted WebSocket and the tunnel's target. */
export function serveTunnel(socket: WebSocket, target: TunnelTarget): void {
  servePostgresTunnel(socket, target);
}
