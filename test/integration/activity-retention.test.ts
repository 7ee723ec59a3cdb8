/**
 * Retention of the Activity record: the reconciler's purge removes events older than
 * ACTIVITY_RETENTION_DAYS, oldest first, at most a bounded number a run, and keeps the rest.
 */
import { randomUUID } from 'node:crypto';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { purgeActivity } from '../../functions/use-cases/activity/retention';
import { metadata } from '../helpers/connections';

const projectId = randomUUID();
let pool: pg.Pool;

const insert = (daysAgo: number, count: number) =>
  metadata(
    `insert into activity_events (at, actor_type, actor_id, via, action, target_type, target_id, project_id)
     select now() - make_interval(days => $1::int), 'system', 'reconciler', 'system', 'test.event', 'test', g::text, $2::uuid
       from generate_series(1, $3::int) g`,
    [daysAgo, projectId, count],
  );
const left = async () =>
  (
    await metadata<{ old: number; recent: number }>(
      `select count(*) filter (where at < now() - interval '400 days')::int as old,
              count(*) filter (where at >= now() - interval '400 days')::int as recent
         from activity_events where project_id = $1`,
      [projectId],
    )
  )[0];

beforeAll(() => {
  pool = new pg.Pool({ connectionString: inject('metadataUrl'), max: 1 });
});
afterAll(async () => {
  await metadata('delete from activity_events where project_id = $1', [projectId]);
  await pool.end();
});

describe('the activity retention purge', () => {
  it('removes only events older than the retention, in bounded runs', async () => {
    await insert(401, 7);
    await insert(399, 2);
    const db = drizzle(pool);
    // A retention of 400 days with a purge of at most 5000 a run: all 7 go in one run.
    expect(await purgeActivity({ db }, { days: 400 })).toBeGreaterThanOrEqual(7);
    expect(await left()).toEqual({ old: 0, recent: 2 });
    expect(await purgeActivity({ db }, { days: 400 })).toBe(0);
    // A shorter retention takes the rest.
    expect(await purgeActivity({ db }, { days: 1 })).toBeGreaterThanOrEqual(2);
    expect(await left()).toEqual({ old: 0, recent: 0 });
  });
});
