/**
 * SQL over every kind's table, built from the descriptors (registry.ts): what a statement that
 * reads a connection's service, or a project's services, of any kind says. A new kind's table
 * joins these statements by its descriptor alone.
 */
import { type SQL, sql } from 'drizzle-orm';
import { serviceKinds } from './registry';
import type { ServiceKind } from './service-kind';

/** ` and <alias>.deleted_at is null` for a kind whose removed services keep their rows, else nothing. */
export const liveOnly = (kind: Pick<ServiceKind, 'softDeleted'>, alias: string): SQL =>
  kind.softDeleted ? sql.raw(` and ${alias}.deleted_at is null`) : sql``;

/** The kind's service `id` (SQL) in its table `s`: `from <table> s where s.id = <id>`, live ones only if `live`. */
const serviceOf = (kind: ServiceKind, id: SQL, live: boolean): SQL =>
  sql`from ${sql.raw(kind.table)} s where s.id = ${id}${live ? liveOnly(kind, 's') : sql``}`;

/**
 * The name of the service a connection-like row names by its `kind` and `resource_id` columns
 * (SQL, e.g. `c.kind`, `c.resource_id`); null when it is gone (or, with `live`, removed).
 */
export function serviceNameOf(kindColumn: SQL, idColumn: SQL, live = false): SQL {
  const names = serviceKinds().map(
    (k) =>
      sql`case when ${kindColumn} = ${k.name} then (select s.${sql.raw(k.nameColumn)} ${serviceOf(k, idColumn, live)}) end`,
  );
  return sql`coalesce(${sql.join(names, sql`, `)})`;
}

/** Whether the service a connection-like row names by `kind` and `resource_id` is live. */
export function serviceIsLive(kindColumn: SQL, idColumn: SQL): SQL {
  const live = serviceKinds().map(
    (k) => sql`(${kindColumn} = ${k.name} and exists (select 1 ${serviceOf(k, idColumn, true)}))`,
  );
  return sql`(${sql.join(live, sql` or `)})`;
}

/**
 * The live services of project `projectId` of every kind, as rows `(kind, id, name, engine,
 * available, created_at)`: `engine` null for a kind without one, `available` whether it may be
 * connected to now.
 */
export function projectServices(projectId: SQL): SQL {
  const selects = serviceKinds().map((k) => {
    const engine = sql.raw(k.hasEngine ? 's.engine' : 'null::text');
    const available = sql.raw(k.enabledColumn ? `s.${k.enabledColumn}` : 'true');
    return sql`select ${k.name}::text as kind, s.id, s.${sql.raw(k.nameColumn)} as name, ${engine} as engine,
        ${available} as available, s.created_at
      from ${sql.raw(k.table)} s where s.project_id = ${projectId}${liveOnly(k, 's')}`;
  });
  return sql.join(selects, sql` union all `);
}

/**
 * A lateral join giving the live service of connection row `alias` (its `kind` and
 * `resource_id`) as `svc(name, engine)`: no row when the service is gone, so `svc.name` is null.
 */
export function liveServiceJoin(alias: string): SQL {
  const c = sql.raw(alias);
  const selects = serviceKinds().map((k) => {
    const engine = sql.raw(k.hasEngine ? 's.engine' : 'null::text');
    return sql`select s.${sql.raw(k.nameColumn)} as name, ${engine} as engine
      ${serviceOf(k, sql`${c}.resource_id`, true)} and ${c}.kind = ${k.name}`;
  });
  return sql`left join lateral (${sql.join(selects, sql` union all `)}) svc on true`;
}

/**
 * The live service of connection row `alias` (its `kind` and `resource_id`) as a JSON object of
 * the columns a derivation reads: its name column, `engine` for a kind with engines, and what its
 * kind's `derivedFrom` lists; null when the service is gone or removed.
 */
export function derivedServiceOf(alias: string): SQL {
  const c = sql.raw(alias);
  const whens = serviceKinds().map((k) => {
    const columns = [...new Set([k.nameColumn, ...(k.hasEngine ? ['engine'] : []), ...k.derivedFrom])];
    const fields = sql.raw(columns.map((col) => `'${col}', s.${col}`).join(', '));
    return sql`when ${k.name} then (select json_build_object(${fields}) ${serviceOf(k, sql`${c}.resource_id`, true)})`;
  });
  return sql`case ${c}.kind ${sql.join(whens, sql` `)} end`;
}
