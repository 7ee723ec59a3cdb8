/**
 * Guards that keep a connection from outliving its service when a connect and the service's
 * deletion run side by side. A connect's batch holds its services' rows (`FOR SHARE`) while it
 * inserts, so a deletion's `deleted_at` update waits for it; a connect that comes after the
 * deletion finds the row deleted and is refused, its new credential dropped. A deletion's batch
 * ends by checking that no connection to the service is left (one committed just before it,
 * from a site it did not read as a holder), else it is retried with that connection in view.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type ServiceKind, serviceKinds } from '../../kinds/registry';
import { liveOnly } from '../../kinds/service-sql';
import { guard } from '../store/guarded-write';
import type { Plan } from './plan';

const list = (ids: readonly string[]): SQL =>
  sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );

/** Rows of live services of `kind` among `ids`, held against deletion until the batch commits. */
const held = (kind: ServiceKind, ids: readonly string[]): SQL =>
  ids.length === 0
    ? sql`0`
    : sql`(select count(*) from (select id from ${sql.raw(kind.table)} s where id in (${list(ids)})${liveOnly(kind, 's')} for share) x)`;

/**
 * The guard of a plan's new connections: every service they name is still live, held so until
 * the batch commits; else 404 with nothing written. Null when the plan adds none.
 */
export function liveServicesGuard(plan: Plan): SQL | null {
  if (plan.adds.length === 0) return null;
  const named = serviceKinds().map((kind) => ({
    kind,
    ids: [...new Set(plan.adds.filter((a) => a.resource.kind === kind.name).map((a) => a.resource.id))],
  }));
  const count = named.reduce((n, k) => n + k.ids.length, 0);
  return guard(
    sql`${sql.join(
      named.map((k) => held(k.kind, k.ids)),
      sql` + `,
    )} = ${count}`,
    {
      code: 'NOT_FOUND',
      message: 'the service was deleted while this request ran; nothing was changed',
    },
  );
}

/**
 * The last guard of a service's deletion: no connection to it is left once its holders' were
 * removed and its row marked deleted; else the deletion lost a race (409 CONFLICT, retried).
 */
export function noConnectionLeftGuard(kind: string, id: string): SQL {
  return guard(
    sql`not exists (select 1 from connections where kind = ${kind} and resource_id = ${id}::uuid)`,
    { code: 'CONFLICT', message: 'the service was connected while it was being deleted; retry' },
  );
}
