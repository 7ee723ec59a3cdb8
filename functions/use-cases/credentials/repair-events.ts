/**
 * The Activity events of the reconciler's repairs (actor `system`, via `system`): a connection's
 * credential put right at its system, or replaced, or moved from the shared credential to its
 * own. The event reads the connection's project, site and names itself, so a repair records
 * with its own write and no read of its own.
 */
import { sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';
import { type CredentialKindName, kindOf } from '../../kinds/registry';
import { serviceNameOf } from '../../kinds/service-sql';
import { activityQuery, SYSTEM_SOURCE } from '../activity';

/** What a repair did to a connection's credential, as the event's details say it. */
export type RepairKind = 'login restored' | 'password set again' | 'key replaced' | 'own credential';

/**
 * The insert recording `repair` of connection `connectionId` (as `credential.repair`, or
 * `credential.switch` for a move to its own credential); records nothing if the connection is gone.
 */
export function connectionRepairEvent(db: Queryable, connectionId: string, repair: RepairKind): BatchQuery {
  const id = sql`${connectionId}::uuid`;
  const name = sql`(select st.slug || ' → ' || ${serviceNameOf(sql`c.kind`, sql`c.resource_id`)}
      from connections c join sites st on st.id = c.site_id
     where c.id = ${id})`;
  return activityQuery(
    db,
    SYSTEM_SOURCE,
    {
      action: repair === 'own credential' ? 'credential.switch' : 'credential.repair',
      target: { type: 'connection', id: connectionId, name },
      projectId: sql`select project_id from connections where id = ${id}`,
      siteId: sql`select site_id from connections where id = ${id}`,
      details: { repair },
    },
    sql`exists (select 1 from connections where id = ${id})`,
  );
}

/** An unused credential the reconciler removed from a system, as the Activity record names it. */
export interface DroppedCredential {
  /** The login, user or key user's name. */
  name: string;
  kind: CredentialKindName;
  /** The physical name of its database or bucket, when known: the event then belongs to its project. */
  physical?: string;
}

/**
 * The insert recording the removal of credentials nothing named (a failed drop, a crash between
 * making a credential and writing its row) as `credential.drop`, in the project of the database
 * or bucket each reached (read by the insert); one whose service is gone is recorded with no
 * project, as no project's record could hold it.
 */
export function droppedCredentialEvents(db: Queryable, dropped: readonly DroppedCredential[]): BatchQuery {
  return activityQuery(
    db,
    SYSTEM_SOURCE,
    dropped.map((d) => {
      const table = sql.raw(kindOf(d.kind).table);
      const service = sql`from ${table} where physical_name = ${d.physical ?? ''} and ${d.physical ?? ''} <> ''`;
      return {
        action: 'credential.drop',
        // Named with its service's name where the service is still there: `c_ab12cd34 (main)`.
        target: {
          type: 'credential',
          id: d.name,
          name: sql`select coalesce((select ${d.name} || ' (' || name || ')' ${service}), ${d.name})`,
        },
        projectId: sql`select project_id ${service}`,
        details: { kind: d.kind, reason: 'named by no connection or principal' },
      };
    }),
  );
}
