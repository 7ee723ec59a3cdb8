/**
 * Reading the Activity record: a project's events or an account's own, newest first, a page at
 * a time. Each read is one statement sent with the caller's lookup (one round trip); the cursor
 * is the last event's place in the record (`seq`), opaque to clients.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import { ApiError } from '../../lib/errors';
import type { ActorType, Via } from './record';

/** An event as the API answers it (CONTRACT: Activity). */
export interface ActivityEventJson {
  id: string;
  at: string;
  actor: { type: ActorType; id: string; email?: string; name?: string };
  via: Via;
  action: string;
  target: { type: string; id: string; name: string | null };
  project_id: string | null;
  site_id?: string;
  ip?: string;
  details: Record<string, unknown>;
}

/** What a page of events is narrowed to. */
export interface ActivityFilter {
  limit: number;
  /** The cursor a previous page answered with. */
  cursor?: string;
  /** An action (`connection.level`) or a resource (`connection`: all its verbs). */
  action?: string;
  /** A site of the project, by id or slug. */
  site?: string;
}

/** The most a page holds, and what it holds when no limit is asked. */
export const ACTIVITY_PAGE = { max: 200, default: 50 } as const;

const encodeCursor = (seq: string): string => btoa(`a${seq}`).replace(/=+$/, '');

/** The `seq` a cursor names, or 400 for one this service never gave. */
function decodeCursor(cursor: string): string {
  let text = '';
  try {
    text = atob(cursor);
  } catch {
    text = '';
  }
  const seq = /^a([0-9]{1,18})$/.exec(text)?.[1];
  if (!seq) throw new ApiError('BAD_REQUEST', 'cursor: not a cursor this service gave', 'cursor');
  return seq;
}

const COLUMNS = sql`e.seq::text as seq, e.id, e.at, e.actor_type, e.actor_id, e.actor_email, e.actor_name, e.via,
  e.action, e.target_type, e.target_id, e.target_name, e.project_id, e.site_id, e.ip, e.details`;

function narrowed(filter: ActivityFilter, projectId: SQL | null): SQL {
  const parts: SQL[] = [];
  if (filter.cursor) parts.push(sql`e.seq < ${decodeCursor(filter.cursor)}::bigint`);
  if (filter.action)
    parts.push(
      sql`(e.action = ${filter.action} or e.action like ${`${filter.action.replace(/[%_\\]/g, '\\$&')}.%`})`,
    );
  if (filter.site && projectId) {
    const site = filter.site.toLowerCase();
    parts.push(sql`e.site_id = (select s.id from sites s where s.project_id = ${projectId}
      and (s.id::text = ${site} or s.slug = ${site}) limit 1)`);
  }
  return parts.length ? sql` and ${sql.join(parts, sql` and `)}` : sql``;
}

const pageOf = (where: SQL, filter: ActivityFilter): SQL => sql`
  select ${COLUMNS} from activity_events e where ${where}${narrowed(filter, null)}
  order by e.seq desc limit ${Math.min(filter.limit, ACTIVITY_PAGE.max) + 1}`;

/** The events of the project `projectId` names (SQL from the request's reference), not yet sent. */
export function projectActivityQuery(db: HttpDb, projectId: SQL, filter: ActivityFilter) {
  const where = sql`e.project_id = ${projectId}${narrowed({ site: filter.site, limit: 0 }, projectId)}`;
  return db.execute<ActivityRow>(pageOf(where, filter));
}

/** The account `accountId` names' own events (sign-ins, tokens), not yet sent. */
export function accountActivityQuery(db: HttpDb, accountId: SQL, filter: ActivityFilter) {
  return db.execute<ActivityRow>(pageOf(sql`e.account_id = ${accountId}`, { ...filter, site: undefined }));
}

/** A row of the record as the reads return it. */
export interface ActivityRow extends Record<string, unknown> {
  seq: string;
  id: string;
  at: string | Date;
  actor_type: ActorType;
  actor_id: string;
  actor_email: string | null;
  actor_name: string | null;
  via: Via;
  action: string;
  target_type: string;
  target_id: string;
  target_name: string | null;
  project_id: string | null;
  site_id: string | null;
  ip: string | null;
  details: Record<string, unknown> | string;
}

const optional = <K extends string>(key: K, v: string | null) =>
  (v ? { [key]: v } : {}) as Partial<Record<K, string>>;

/** A page of the answer: the events, and the cursor of the next page (null on the last). */
export function activityPage(
  answer: { rows: ActivityRow[] },
  limit: number,
): { events: ActivityEventJson[]; next_cursor: string | null } {
  const size = Math.min(limit, ACTIVITY_PAGE.max);
  const rows = answer.rows.slice(0, size);
  const last = rows[rows.length - 1];
  return {
    events: rows.map((r) => ({
      id: r.id,
      at: new Date(r.at).toISOString(),
      actor: {
        type: r.actor_type,
        id: r.actor_id,
        ...optional('email', r.actor_email),
        ...optional('name', r.actor_name),
      },
      via: r.via,
      action: r.action,
      target: { type: r.target_type, id: r.target_id, name: r.target_name },
      project_id: r.project_id,
      ...optional('site_id', r.site_id),
      ...optional('ip', r.ip),
      details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
    })),
    next_cursor: answer.rows.length > size && last ? encodeCursor(last.seq) : null,
  };
}
