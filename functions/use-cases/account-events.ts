/** The Activity events of an account's own: its creation, sign-ins, tokens and sessions. */
import type { SQL } from 'drizzle-orm';
import type { BatchQuery, Queryable } from '../../db/client';
import { type ActivitySource, activityQuery, activityStatement, type DetailValue } from './activity';

/** A token or session as an event's target. */
export interface AccountTarget {
  type: 'account' | 'token' | 'session';
  id: string | SQL;
  name?: string | SQL | null;
}

/**
 * The statement recording `action` in account `accountId`'s own record (no project), when
 * `when` holds at that point of the batch.
 */
export function accountEvent(
  db: Queryable,
  by: ActivitySource,
  accountId: string,
  action: string,
  target: AccountTarget,
  details: Record<string, DetailValue | undefined> = {},
  when?: SQL,
): BatchQuery {
  return activityQuery(db, by, { action, target, projectId: null, accountId, details }, when);
}

/** SQL recording an account's creation (by the operator) in its own record, when `when` holds. */
export function accountCreated(by: ActivitySource, account: { id: string; email: string }, when: SQL): SQL {
  const target = { type: 'account', id: account.id, name: account.email };
  return activityStatement(
    by,
    { action: 'account.create', target, projectId: null, accountId: account.id },
    when,
  );
}
