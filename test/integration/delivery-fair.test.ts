/**
 * Fair delivery through the real stack (docs/contract.md §14): the Worker's queue handler runs
 * here (test/helpers/in-process-app.ts) on the real metadata database, with webhook receivers
 * that hold every request until the test lets them answer. Nothing is timed: a batch of slow
 * sites returns once the time budget passes (any budget: the receivers hold until released), and
 * the assertions are about order and counts: a healthy site's patch is live while every slow
 * receiver still holds its request, a held site gets no second request, and its waiting copies
 * cost no try. The same through the Worker under workerd (the shared stack): the queue moves on
 * while a slow site's send is still held. The reconciler re-sends only a delivery whose message
 * is lost.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, createPool } from '../../db/client';
import { requeueLost, stalledDeliveries } from '../../functions/use-cases/delivery/deliveries';
import { createSite, metadata, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { type Receiver, startReceiver } from '../helpers/receiver';

/** A receiver that answers nothing until `release`, then 200 to everything it holds and gets. */
async function startHoldingReceiver() {
  const held: ServerResponse[] = [];
  const paths: string[] = [];
  const aborted: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let released = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    // The sender gave up on a request still held (its send timed out).
    res.on('close', () => {
      if (!res.writableEnded) aborted.push(req.url ?? '');
    });
    req.on('end', () => {
      paths.push(req.url ?? '');
      if (released) res.writeHead(200).end('{}');
      else held.push(res);
      for (const w of waiters.filter((x) => held.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    aborted,
    holding: () => held.length,
    /** Resolves once `n` requests are held (event driven). */
    holdingAtLeast: (n: number) =>
      held.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    release() {
      released = true;
      for (const res of held.splice(0)) res.writeHead(200).end('{}');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let app: InProcessApp;
let receiver: Receiver;
let slow: Awaited<ReturnType<typeof startHoldingReceiver>>;
/** A promise with its resolve. */
function gate() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
/** The budget of the batch now running: it runs out when resolved (a fresh one per batch). */
let budget = gate();

beforeAll(async () => {
  receiver = await startReceiver();
  slow = await startHoldingReceiver();
  // The batch's time budget ends when the test says: once the slow receivers hold their requests.
  app = await startInProcessApp({}, undefined, undefined, () => budget.promise);
}, 60_000);
afterAll(async () => {
  slow?.release();
  await app?.stop();
  await receiver?.close();
  await slow?.close();
});

const SECRET = 'a-webhook-secret-of-length';

describe('a slow target delays only its own site', () => {
  it("a healthy site's patch is live while ten slow receivers hold theirs; a held site gets no second request", async () => {
    const s = await seed(app.baseUrl, 1);
    const sites = [s.sites[0] as { id: string }];
    for (let i = 0; i < 10; i++) sites.push(await createSite(s.as, s.project.id));
    const base = `/api/v1/projects/${s.project.id}/sites`;
    const healthy = sites[10] as { id: string };
    const from = app.sent.length;
    for (const site of sites) {
      const url = site === healthy ? `${receiver.url}/hook-${site.id}` : `${slow.url}/slow-${site.id}`;
      const set = await s.as.put(`${base}/${site.id}/target`, { type: 'webhook', url, secret: SECRET });
      expect(set.status, set.text).toBe(200);
    }
    const syncs = app.sent.slice(from);
    expect(syncs).toHaveLength(11);
    const listed = async (siteId: string) =>
      (
        await s.as.get<{ deliveries: Array<{ status: string; live_at: string | null }> }>(
          `${base}/${siteId}/deliveries`,
        )
      ).body.deliveries;

    // The ten slow syncs: the batch is answered at its budget, each message retried after the
    // backoff, while every receiver still holds its request.
    const slowBatch = syncs.slice(0, 10);
    const answered = app.runQueue(slowBatch);
    await slow.holdingAtLeast(10);
    budget.resolve();
    expect(await answered).toEqual(slowBatch.map(() => ({ acked: false, delaySeconds: 2 })));
    budget = gate();

    // The healthy site's sync, the next batch: live now, the slow ones still held.
    expect(await app.runQueue(syncs.slice(10))).toEqual([{ acked: true }]);
    expect((await listed(healthy.id))[0]).toMatchObject({ status: 'live' });
    expect(slow.holding()).toBe(10);
    for (const site of sites.slice(0, 10)) expect((await listed(site.id))[0]?.status).toBe('pending');

    // Their retries come back while the first tries still hold: each is deferred (acked and sent
    // again a little later, not a try), none reaches its receiver a second time.
    const deferredFrom = app.sent.length;
    expect(await app.runQueue(slowBatch, 2)).toEqual(slowBatch.map(() => ({ acked: true })));
    const byId = (m: unknown) => (m as { deliveryId: string }).deliveryId;
    expect(app.sent.slice(deferredFrom).map(byId).sort()).toEqual(slowBatch.map(byId).sort());
    expect(app.delays.slice(deferredFrom)).toEqual(slowBatch.map(() => 2));
    expect(slow.paths).toHaveLength(10);
    const [tried] = await metadata<{ attempts: number }>(
      'select max(attempts)::int as attempts from deliveries where id = any($1::uuid[])',
      [slowBatch.map(byId)],
    );
    expect(tried?.attempts).toBe(1);

    // Let them answer: the tries left running finish, and each slow site's sync is live.
    slow.release();
    await app.settled();
    for (const site of sites.slice(0, 10)) expect((await listed(site.id))[0]?.status).toBe('live');
    // The deferred copies find nothing left to send.
    expect(await app.runQueue(app.sent.slice(deferredFrom))).toEqual(slowBatch.map(() => ({ acked: true })));
    expect(slow.paths).toHaveLength(10);
  }, 60_000);
});

describe('through the Worker under workerd (the shared stack)', () => {
  it("the queue moves past a slow site's send: another site's patch is live while that send is still held", async () => {
    const held = await startHoldingReceiver();
    try {
      const s = await seed(inject('baseUrl'), 2);
      const [slowSite, healthySite] = [s.sites[0], s.sites[1]] as [{ id: string }, { id: string }];
      const base = `/api/v1/projects/${s.project.id}/sites`;
      const setTarget = (site: { id: string }, url: string) =>
        s.as.put(`${base}/${site.id}/target`, { type: 'webhook', url, secret: SECRET });
      // The slow site's sync reaches its receiver, which holds it.
      expect((await setTarget(slowSite, `${held.url}/slow-${slowSite.id}`)).status).toBe(200);
      await held.holdingAtLeast(1);
      // Then the healthy site's: live while that request is still held, not after the send gives up on it.
      expect((await setTarget(healthySite, `${receiver.url}/hook-${healthySite.id}`)).status).toBe(200);
      await eventually(
        async () =>
          (await s.as.get<{ deliveries: Array<{ status: string }> }>(`${base}/${healthySite.id}/deliveries`))
            .body.deliveries,
        (d) => d[0]?.status === 'live',
        30_000,
        "the healthy site's sync live",
      );
      expect(held.aborted).toEqual([]);
      expect(held.holding()).toBe(1);
      // Let it answer: the slow site's sync is live too, sent once.
      held.release();
      await eventually(
        async () =>
          (await s.as.get<{ deliveries: Array<{ status: string }> }>(`${base}/${slowSite.id}/deliveries`))
            .body.deliveries,
        (d) => d[0]?.status === 'live',
        30_000,
        "the slow site's sync live",
      );
      expect(held.paths).toHaveLength(1);
    } finally {
      held.release();
      await held.close();
    }
  }, 90_000);
});

describe('the reconciler re-sends only deliveries whose message is lost', () => {
  it('leaves one still in the queue, deferred or in flight; re-sends a lost one once', async () => {
    const s = await seed(app.baseUrl, 5);
    const ids: string[] = [];
    for (const site of s.sites) {
      const [row] = await metadata<{ id: string }>(
        `insert into deliveries (id, kind, project_id, target_id, reason, set_names)
         values (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', '["A"]') returning id`,
        [s.project.id, site.id],
      );
      ids.push((row as { id: string }).id);
    }
    const [queued, inFlight, deferred, lost, lapsed] = ids as [string, string, string, string, string];
    // Made a minute ago and never tried: its message still waits in the queue (30 s used to count as stalled).
    await metadata(`update deliveries set created_at = now() - interval '60 seconds' where id = $1`, [
      queued,
    ]);
    // Taken by a consumer that is still sending it.
    await metadata(
      `update deliveries set created_at = now() - interval '1 day', attempts = 1, last_attempt_at = now() - interval '1 day',
         claimed_until = now() + interval '50 seconds' where id = $1`,
      [inFlight],
    );
    // Deferred behind its site's delivery in flight a moment ago.
    await metadata(
      `update deliveries set created_at = now() - interval '1 day', requeue_after = now() + interval '100 seconds' where id = $1`,
      [deferred],
    );
    // Its message was lost long ago (the enqueue failed).
    await metadata(`update deliveries set created_at = now() - interval '1 day' where id = $1`, [lost]);
    // Its last message was due long ago and nobody took it.
    await metadata(
      `update deliveries set created_at = now() - interval '1 day', requeue_after = now() - interval '1 second' where id = $1`,
      [lapsed],
    );
    const env = inject('workerEnv');
    const pool = createPool(env.DATABASE_URL as string, env.NEON_WS_PROXY);
    const db = createDb(pool);
    const mine = async () =>
      (await stalledDeliveries(db, 'runtime_patch', 100_000)).filter((id) => ids.includes(id));
    const sent: unknown[] = [];
    const queue = {
      sendBatch: async (m: Array<{ body: unknown }>) => void sent.push(...m.map((x) => x.body)),
    };
    try {
      expect((await mine()).sort()).toEqual([lost, lapsed].sort());
      await requeueLost({ db, queue: queue as never }, 'runtime_patch', [lost, lapsed]);
      expect(sent).toEqual([
        { type: 'deliver', deliveryId: lost },
        { type: 'deliver', deliveryId: lapsed },
      ]);
      // A message stands for them again: the next tick leaves them to it.
      expect(await mine()).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
