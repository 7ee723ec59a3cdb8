/**
 * A reconciler no tenant can stall: expired principals whose role is held by a lock (as a tenant
 * holding the platform's lock key, or any long transaction, can do) are each given a short
 * lock wait, recorded with their error in `/healthz` detail and left to a backoff, while the
 * other expired principals are removed in the same tick; once the lock goes, the retry removes
 * them. Before this, each stalled principal cost the whole run a 4 s wait, one after another,
 * and nothing recorded the failure anywhere an operator could see it.
 */
import { describe, expect, inject, it } from 'vitest';
import { lockSecret, privilegesLock } from '../../functions/adapters/postgres-sql';
import { metadata } from '../helpers/connections';
import { clusterAdmin, customerAdminUrl, superuser } from '../helpers/pg-login';
import { postgresPrincipalsForFile } from '../helpers/postgres-principals';
import { triggerScheduled } from '../helpers/worker';

type Health = {
  ok: boolean;
  reconciler: {
    last_tick_at: string | null;
    steps: Array<{ name: string; ok: boolean; failures: number }>;
    failing_items: Array<{ step: string; item_id: string; attempts: number; last_error: string | null }>;
  };
};

const { world, sessions, database, principal } = postgresPrincipalsForFile();

const health = async (token?: string) =>
  fetch(`${inject('baseUrl')}/healthz?detail`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

const named = (name: string) => ({
  name,
  level: 'read-only',
  expires_at: new Date(Date.now() + 3600_000).toISOString(),
});

/** Moves a principal's expiry into the past, at the cluster and in the record. */
async function expire(p: { id: string; username: string }) {
  const past = new Date(Date.now() - 1000).toISOString();
  const admin = await superuser();
  try {
    await admin.query(`alter role "${p.username}" valid until '${past}'`);
  } finally {
    await admin.end();
  }
  await metadata('update principals set expires_at = $2 where id = $1', [p.id, past]);
}

/** Makes a principal on `db` and moves its expiry into the past. */
async function expired(db: Awaited<ReturnType<typeof database>>, name: string) {
  const p = await principal(db.base, named(name));
  await expire(p);
  return p;
}

const roleExists = async (name: string) => {
  const admin = await superuser();
  try {
    return (await admin.query('select 1 from pg_roles where rolname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
};

describe('reconciler isolation', () => {
  it('/healthz stays {"ok":true}; its detail is for the operator only', async () => {
    const plain = await fetch(`${inject('baseUrl')}/healthz`);
    expect(await plain.json()).toEqual({ ok: true });
    expect((await health()).status).toBe(401);
    expect((await health('not-the-operator-token-at-all-but-long-enough')).status).toBe(401);
    await triggerScheduled();
    const res = await health(inject('operatorToken'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Health;
    expect(body.reconciler.last_tick_at).not.toBeNull();
    expect(body.reconciler.steps.map((s) => s.name)).toContain('remove-expired-principals');
  });

  it('stalled principals are recorded and retried later; the others are removed in the same tick', async () => {
    const stuckDb = await database();
    const freeDb = await database();
    // Hold the lock every privilege change on the stuck database takes, in the admin's own
    // database, before anything expires (the stack's own minute tick may run at any time).
    const adminDb = new URL(customerAdminUrl()).pathname.slice(1) || 'postgres';
    const holder = await clusterAdmin(adminDb);
    sessions.push(holder);
    await holder.query('begin');
    try {
      const stuck = [
        await principal(stuckDb.base, named('stuck-a')),
        await principal(stuckDb.base, named('stuck-b')),
      ];
      await holder.query(privilegesLock(lockSecret(customerAdminUrl()), stuckDb.physical));
      for (const p of stuck) await expire(p);
      const free = [await expired(freeDb, 'free-a'), await expired(freeDb, 'free-b')];
      await triggerScheduled();
      for (const p of free) expect(await roleExists(p.username)).toBe(false);
      for (const p of stuck) expect(await roleExists(p.username)).toBe(true);
      const detail = (await (await health(inject('operatorToken'))).json()) as Health;
      const failing = detail.reconciler.failing_items.filter((f) => stuck.some((p) => p.id === f.item_id));
      expect(failing).toHaveLength(2);
      for (const f of failing) {
        expect(f).toMatchObject({ step: 'remove-expired-principals', attempts: 1 });
        expect(f.last_error).toMatch(/lock timeout/);
      }
      // Waiting out their backoff, they are not tried again by the next tick.
      await triggerScheduled();
      const again = (await (await health(inject('operatorToken'))).json()) as Health;
      for (const f of again.reconciler.failing_items.filter((x) => stuck.some((p) => p.id === x.item_id)))
        expect(f.attempts).toBe(1);
    } finally {
      await holder.query('rollback');
    }
    const stuck = await metadata<{ id: string; username: string }>(
      `select id, credential_name as username from principals where resource_id = $1`,
      [stuckDb.id],
    );
    expect(stuck).toHaveLength(2);
    // The backoff has passed (moved, as time would move it): the retry removes them.
    await metadata(
      `update reconcile_failures set retry_at = now() - interval '1 second' where step = 'remove-expired-principals'`,
    );
    await triggerScheduled();
    for (const p of stuck) expect(await roleExists(p.username)).toBe(false);
    const after = (await (await health(inject('operatorToken'))).json()) as Health;
    expect(after.reconciler.failing_items.filter((f) => stuck.some((p) => p.id === f.item_id))).toEqual([]);
    const list = await world.as.get<{ principals: unknown[] }>(`${stuckDb.base}/principals`);
    expect(list.body.principals).toEqual([]);
  });
});
