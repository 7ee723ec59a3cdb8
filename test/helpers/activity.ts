/** Reading the Activity record in tests: a project's whole record and the secrets none of it may hold. */
import { expect } from 'vitest';
import type { ActivityEventJson } from '../../functions/use-cases/activity/read';
import type { ApiClient } from './api';

/** An event as the API answers it: the route's own type. */
export type ActivityEvent = ActivityEventJson;

/** A page of events. */
export interface ActivityPage {
  events: ActivityEvent[];
  next_cursor: string | null;
}

/** Every event of `path` (a project's or the account's activity route), newest first, through every page. */
export async function allEvents(as: ApiClient, path: string): Promise<ActivityEvent[]> {
  const events: ActivityEvent[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: { status: number; body: ActivityPage } = await as.get<ActivityPage>(
      `${path}${sep}limit=200${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    cursor = res.body.next_cursor;
  } while (cursor);
  return events;
}

/** How many events of each action. */
export function countByAction(events: readonly ActivityEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) counts[e.action] = (counts[e.action] ?? 0) + 1;
  return counts;
}

/** The fields of an answer that hold a secret: passwords, keys, tokens and URLs carrying credentials. */
const SECRET_FIELD = /password|secret|token|^key$|url|uri/i;

/** Every secret an answer (a response body) shows, found by its field's name, at any depth. */
export function secretsIn(value: unknown, out: string[] = [], field = ''): string[] {
  if (typeof value === 'string') {
    if (SECRET_FIELD.test(field) && (!/url|uri/i.test(field) || value.includes('@'))) out.push(value);
  } else if (Array.isArray(value)) for (const v of value) secretsIn(v, out, field);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) secretsIn(v, out, /^(vars|env)$/.test(field) ? 'secret' : k);
  return out;
}

/** Fails when any of `secrets` appears anywhere in `events`. */
export function expectNoSecret(events: readonly ActivityEvent[], secrets: readonly string[]): void {
  const text = JSON.stringify(events);
  for (const secret of secrets) {
    if (secret.length >= 8)
      expect(text.includes(secret), `a secret appears in the events: ${secret.slice(0, 6)}…`).toBe(false);
  }
}

/** The events of `action` in the project at `projectPath` (`/api/v1/projects/<id>`), each checked to be Tether's own (actor and via `system`). */
export async function systemEvents(
  as: ApiClient,
  projectPath: string,
  action: string,
): Promise<ActivityEvent[]> {
  const events = (await allEvents(as, `${projectPath}/activity?action=${action}`)).filter(
    (e) => e.action === action,
  );
  for (const e of events) {
    expect(e.actor).toMatchObject({ type: 'system' });
    expect(e.via).toBe('system');
  }
  return events;
}
