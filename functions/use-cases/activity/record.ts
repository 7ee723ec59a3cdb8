/**
 * The Activity recorder: every change adds its event to the same batch or transaction as the
 * change itself, so an event exists exactly when its change landed and costs no round trip of
 * its own. A write builds {@link activityQuery} (or {@link activityStatement} for raw SQL) with
 * the request's {@link ActivitySource} and sends it beside its row changes:
 *
 *   await runGuarded(db, [...changes, activityQuery(db, by, { action: 'database.create', … })]);
 *
 * The actor's e-mail (an account) or name (an API key) is read by the insert itself.
 * `details` never holds a secret: keys that name one and values that look like one are dropped
 * here, whatever a caller passes.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../../db/client';

/** Who made a change. */
export type ActorType = 'account' | 'api_key' | 'operator' | 'system';
/** The way in a change came by. */
export type Via = 'api' | 'console' | 'cli' | 'system';

/** Who made the changes of one request (or reconciler run), and how it came in. */
export interface ActivitySource {
  /** The actor's id may be SQL read by the insert (an account a sign-in statement found or made). */
  actor: { type: ActorType; id: string | SQL };
  via: Via;
  /**
   * Whether `via` is only what the client said of itself (the `X-Tether-Client` header, which
   * any caller may send): recorded as `details.via_declared: true` (contract §13's shape kept).
   */
  viaDeclared?: boolean;
  ip: string | null;
}

/** The reconciler and queue handlers: changes nobody asked for. */
export const SYSTEM_SOURCE: ActivitySource = {
  actor: { type: 'system', id: 'reconciler' },
  via: 'system',
  ip: null,
};

/** What a detail may hold: plain values, never a secret. */
export type DetailValue = string | number | boolean | null | readonly string[];

/** One change to record. Ids and names may be SQL read by the insert itself. */
export interface ActivityEvent {
  /** `<resource>.<verb>`, e.g. `connection.level`. */
  action: string;
  target: { type: string; id: string | SQL; name?: string | SQL | null };
  /** The project the change belongs to; null for an account's own events. */
  projectId: string | SQL | null;
  siteId?: string | SQL | null;
  /** The account whose own activity this is (sign-ins, tokens); else none. */
  accountId?: string | SQL | null;
  details?: Record<string, DetailValue | undefined>;
}

const SECRET_KEY = /secret|password|passwd|token|private|credential_value|^key$|api_key_value/i;
const SECRET_VALUE = /tth_[a-z]{2}_|:\/\/[^\s/@:]*:[^\s/@]+@|-----BEGIN/;

/** `details` with anything that names or looks like a secret left out. */
export function safeDetails(details: ActivityEvent['details'] = {}): Record<string, DetailValue> {
  const out: Record<string, DetailValue> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined || SECRET_KEY.test(key)) continue;
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((v) => typeof v === 'string' && SECRET_VALUE.test(v))) continue;
    out[key] = value;
  }
  return out;
}

// Every value carries its type, so a row reads the same in `values` as under `select … where`.
const value = (v: string | SQL | null | undefined, type: 'text' | 'uuid'): SQL => {
  const cast = sql.raw(`::${type}`);
  if (v === null || v === undefined) return sql`null${cast}`;
  return typeof v === 'string' ? sql`${v}${cast}` : sql`(${v})${cast}`;
};

const actorEmail = (a: ActivitySource['actor']): SQL =>
  a.type === 'account' ? sql`(select email from accounts where id = ${value(a.id, 'uuid')})` : sql`null`;

const actorName = (a: ActivitySource['actor']): SQL => {
  if (a.type === 'account') return sql`(select name from accounts where id = ${value(a.id, 'uuid')})`;
  if (a.type === 'api_key') return sql`(select name from api_keys where id = ${value(a.id, 'uuid')})`;
  return sql`${a.type === 'operator' ? 'operator' : value(a.id, 'text')}`;
};

function row(by: ActivitySource, e: ActivityEvent): SQL {
  return sql`(${by.actor.type}::text, ${value(by.actor.id, 'text')}, ${actorEmail(by.actor)}::text,
    ${actorName(by.actor)}::text, ${by.via}::text, ${e.action}::text, ${e.target.type}::text,
    ${value(e.target.id, 'text')}, ${value(e.target.name, 'text')}, ${value(e.projectId, 'uuid')},
    ${value(e.siteId, 'uuid')}, ${value(e.accountId, 'uuid')}, ${by.ip}::text,
    ${JSON.stringify(safeDetails(by.viaDeclared ? { ...e.details, via_declared: true } : e.details))}::jsonb)`;
}

const COLUMNS = sql.raw(`actor_type, actor_id, actor_email, actor_name, via, action, target_type,
  target_id, target_name, project_id, site_id, account_id, ip, details`);

/**
 * SQL inserting `events` (one or more) made by `by`; for a raw batch or a transaction. With
 * `when`, only if that condition holds when the statement runs (a removal that found nothing
 * records nothing): place it before the change in the batch so it sees the rows as they were.
 */
export function activityStatement(
  by: ActivitySource,
  events: ActivityEvent | readonly ActivityEvent[],
  when?: SQL,
): SQL {
  const list = Array.isArray(events) ? events : [events as ActivityEvent];
  if (list.length === 0) return sql`select 1 where false`;
  const rows = sql.join(
    list.map((e) => row(by, e)),
    sql`, `,
  );
  if (!when) return sql`insert into activity_events (${COLUMNS}) values ${rows}`;
  return sql`insert into activity_events (${COLUMNS}) select * from (values ${rows}) as v where ${when}`;
}

/**
 * The insert of `events` as a query on `db` (an HTTP database for a batch, or a transaction),
 * not yet sent: put it in the change's own batch, or await it inside its transaction.
 */
export function activityQuery(
  db: Queryable,
  by: ActivitySource,
  events: ActivityEvent | readonly ActivityEvent[],
  when?: SQL,
): BatchQuery {
  return db.execute(activityStatement(by, events, when));
}
