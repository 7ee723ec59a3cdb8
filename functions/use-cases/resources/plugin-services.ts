/**
 * The services of a kind a plugin registers (registry.ts `registerKind`), in the table its
 * descriptor names: listed, read, made (with the initial connection a one-site project gets, as
 * every service) and deleted with their connections, from the descriptor alone.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';
import type { Kind } from '../../domain/levels';
import { type ColumnValue, isSqlIdentifier, type PluginKind } from '../../kinds/registry';
import { liveOnly } from '../../kinds/service-sql';
import { ApiError } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { afterCommit } from '../connections/apply';
import { type ServiceHolders, writeServiceRemoval } from '../connections/service-removal';
import { guardRows } from '../store/guarded-write';
import { type InitialSite, writeNewService } from './new-service-write';

/** A plugin kind's service as its routes show it: `id`, `name`, its shown columns, `created_at`. */
export type PluginService = { id: string; name: string; created_at: string } & Record<string, ColumnValue>;

/** The row of a plugin kind's service as its reads select it (with its project, for a removal). */
export type PluginServiceRow = PluginService & { project_id: string };

/** The columns a plugin kind's reads select, as `s.<column> as <field>`. */
function selected(kind: PluginKind): SQL {
  const columns = [
    's.id',
    's.project_id',
    `s.${kind.nameColumn} as name`,
    ...kind.shown.map((c) => `s.${c}`),
    `to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at`,
  ];
  return sql.raw(columns.join(', '));
}

/** The project's live services of plugin kind `kind`, oldest first, as a query not yet sent. */
export function pluginServicesQuery(db: Queryable, kind: PluginKind, projectId: SQL): BatchQuery {
  return db.execute(sql`select ${selected(kind)} from ${sql.raw(kind.table)} s
    where s.project_id = ${projectId}${liveOnly(kind, 's')} order by s.created_at, s.id`);
}

/** The live service `id` of plugin kind `kind` in the project, as a query not yet sent. */
export function pluginServiceQuery(db: Queryable, kind: PluginKind, projectId: SQL, id: string): BatchQuery {
  const match = isUuid(id) ? sql`s.id = ${id.toLowerCase()}::uuid` : sql`false`;
  return db.execute(sql`select ${selected(kind)} from ${sql.raw(kind.table)} s
    where ${match} and s.project_id = ${projectId}${liveOnly(kind, 's')}`);
}

/** The rows of an answer of {@link pluginServicesQuery} or {@link pluginServiceQuery}. */
export const pluginRowsOf = (answer: unknown): PluginServiceRow[] =>
  (answer as { rows: PluginServiceRow[] }).rows;

/** The one service an answer of {@link pluginServiceQuery} holds; 404 when none. */
export function pluginServiceOf(kind: PluginKind, answer: unknown): PluginServiceRow {
  const [row] = pluginRowsOf(answer);
  if (!row) throw new ApiError('NOT_FOUND', `${kind.word} not found`);
  return row;
}

/** The answer of a service: its row without its project. */
export const shownService = ({ project_id: _, ...service }: PluginServiceRow): PluginService => service;

/**
 * Makes a service of plugin kind `kind` named `input.name` in project `projectId`: its row, and
 * its initial connection when the project has one site, in one guarded batch; a name taken is its
 * kind's 409.
 */
export async function createPluginService(
  ctx: RequestContext,
  kind: PluginKind,
  projectId: string,
  input: Readonly<Record<string, unknown>> & { name: string },
  initial: InitialSite,
): Promise<PluginService> {
  const id = newId();
  const createdAt = new Date();
  const columns = writableColumns(kind, kind.creation.columns(input));
  const names = [kind.nameColumn, ...Object.keys(columns)];
  const values = [input.name, ...Object.values(columns)];
  const insert = sql`insert into ${sql.raw(kind.table)} (id, project_id, created_at, ${sql.raw(names.join(', '))})
    values (${id}::uuid, ${projectId}::uuid, ${createdAt.toISOString()}::timestamptz, ${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )})`;
  const service = { kind: kind.name as Kind, resource: { id, projectId, name: input.name } };
  await writeNewService(ctx, service, initial, (db) => db.execute(insert));
  // Read back as every read shows it: a shown column its table fills or normalises is as stored.
  const projectParam = sql`${projectId}::uuid`;
  return shownService(pluginServiceOf(kind, await pluginServiceQuery(ctx.http, kind, projectParam, id)));
}

/** Columns every row of a plugin kind's table gets from its routes, never from its creation. */
const ROUTE_COLUMNS = ['id', 'project_id', 'created_at', 'deleted_at'];

/**
 * The columns a plugin kind's `creation.columns` made, checked: each an identifier, none that
 * the routes write themselves (a plugin's fault, so a 500, never a statement built from it).
 */
function writableColumns(
  kind: PluginKind,
  columns: Record<string, ColumnValue>,
): Record<string, ColumnValue> {
  for (const column of Object.keys(columns)) {
    if (!isSqlIdentifier(column) || ROUTE_COLUMNS.includes(column) || column === kind.nameColumn)
      throw new Error(`kind ${kind.name}: its creation may not write column ${JSON.stringify(column)}`);
  }
  return columns;
}

/**
 * Deletes service `row` of plugin kind `kind` with every connection to it (each holding site's
 * names unset by a live patch), in one guarded batch: a removed row keeps `deleted_at` when its
 * kind keeps removed services, else goes.
 */
export async function deletePluginService(
  ctx: RequestContext,
  kind: PluginKind,
  row: PluginServiceRow,
  holders: ServiceHolders,
): Promise<void> {
  const db = ctx.http;
  const table = sql.raw(kind.table);
  const removal = kind.softDeleted
    ? sql`update ${table} set deleted_at = now() where id = ${row.id}::uuid and deleted_at is null returning id`
    : sql`delete from ${table} where id = ${row.id}::uuid returning id`;
  const { written } = await writeServiceRemoval(
    db,
    ctx.config,
    { projectId: row.project_id, kind: kind.name as Kind, id: row.id, name: row.name },
    holders,
    { after: [db.execute(guardRows(removal, { code: 'NOT_FOUND', message: `${kind.word} not found` }))] },
    ctx.activity,
  );
  await afterCommit(ctx, written);
}
