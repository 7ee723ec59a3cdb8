/**
 * A delivery is `live` once confirmed where the app runs (contract §14): a webhook's 2xx for that
 * seq sets the status `live` and `live_at` by the consumer's clock; a failed try leaves it
 * `failed` and not live. `isDeliveryLive` (use-cases/delivery/live.ts) answers the same, and a
 * patch confirmed later makes every earlier one of its site live as well. The Worker runs here
 * (test/helpers/in-process-app.ts) and its queue batches are handed to it by the test.
 */
import { neonConfig } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import ws from 'ws';
import { createDb, createPool, type Db } from '../../db/client';
import { isDeliveryLive } from '../../functions/use-cases/delivery/live';
import { seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { type Receiver, startReceiver } from '../helpers/receiver';

interface Listed {
  deliveries: Array<{ id: string; seq: number; reason: string; status: string; live_at: string | null }>;
}

let at = new Date('2031-02-03T04:05:06.000Z');
let app: InProcessApp;
let receiver: Receiver;
let pool: ReturnType<typeof createPool>;
let db: Db;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startInProcessApp({}, undefined, { now: () => at });
  neonConfig.webSocketConstructor = ws;
  const env = inject('workerEnv');
  pool = createPool(env.DATABASE_URL as string, env.NEON_WS_PROXY);
  db = createDb(pool);
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await app?.stop();
  await receiver?.close();
});

/** Sends every `deliver` message the app queued since `from` as one batch. */
async function runDeliveries(from: number) {
  return app.runQueue(app.sent.slice(from).filter((m) => m.type === 'deliver'));
}

describe('a webhook delivery is live once the receiver answered 2xx', () => {
  it('sets live and live_at by the clock, and isDeliveryLive follows; a failed try is not live', async () => {
    const s = await seed(app.baseUrl, 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    const target = { type: 'webhook', url: `${receiver.url}/hook`, secret: 'a-webhook-secret-of-length' };
    const listed = async () => (await s.as.get<Listed>(`${site}/deliveries`)).body.deliveries;

    let from = app.sent.length;
    expect((await s.as.put(`${site}/target`, target)).status).toBe(200);
    const [sync] = await listed();
    expect(sync).toMatchObject({ reason: 'sync', status: 'pending', live_at: null });
    expect(await isDeliveryLive(db, sync?.id as string)).toBe(false);

    at = new Date('2031-02-03T04:05:07.000Z');
    expect(await runDeliveries(from)).toEqual([{ acked: true }]);
    expect(receiver.requests.filter((r) => r.path === '/hook')).toHaveLength(1);
    const [live] = await listed();
    expect(live).toMatchObject({ id: sync?.id, status: 'live', live_at: '2031-02-03T04:05:07.000Z' });
    expect(await isDeliveryLive(db, sync?.id as string)).toBe(true);

    // The receiver fails the next one: failed, retried, not live.
    receiver.failNext(1);
    from = app.sent.length;
    expect((await s.as.put(`${site}/target`, target)).status).toBe(200);
    const outcomes = await runDeliveries(from);
    expect(outcomes).toEqual([{ acked: false, delaySeconds: expect.any(Number) }]);
    const [failed] = await listed();
    expect(failed).toMatchObject({ reason: 'sync', status: 'failed', live_at: null });
    expect(await isDeliveryLive(db, failed?.id as string)).toBe(false);
    // The first sync was confirmed by itself, whatever became of later ones.
    expect(await isDeliveryLive(db, sync?.id as string)).toBe(true);

    // Its retry succeeds: live.
    at = new Date('2031-02-03T04:05:09.000Z');
    expect(await app.runQueue([{ type: 'deliver', deliveryId: failed?.id as string }], 2)).toEqual([
      { acked: true },
    ]);
    expect((await listed())[0]).toMatchObject({ status: 'live', live_at: '2031-02-03T04:05:09.000Z' });
    expect(await isDeliveryLive(db, failed?.id as string)).toBe(true);
  });
});
