/**
 * Fair delivery (docs/contract.md §14) on the queue's own clock: the real consumer
 * (functions/queues/consumer.ts) runs on a simulated provisioning queue that behaves as
 * miniflare's does (batches of 10, one batch at a time, a short batch waits `max_batch_timeout`,
 * retries and sends come back after their delay), with virtual time and deliveries whose
 * receivers either answer at once or hold each request 15 s (the send gives up at 10 s, as
 * adapters/receiver.ts does). Nothing waits on a real timer: the clock jumps to the next event.
 */
import { describe, expect, it } from 'vitest';
import type { ProvisioningMessage } from '../domain/queue-messages';
import { QUEUE_BATCH_MESSAGES } from '../use-cases/background/step';
import { DEFER_SECONDS, SiteBusy } from '../use-cases/delivery/site-hold';
import {
  type ConsumerContext,
  consumeProvisioning,
  type Fairness,
  type Handlers,
  MESSAGE_TIME_BUDGET_MS,
  OVER_BUDGET,
} from './consumer';

/** Virtual time: timers fire in order, the clock jumping to each once everything else has settled. */
class VirtualTime {
  now = 0;
  private timers: Array<{ at: number; n: number; fire: () => void }> = [];
  private n = 0;
  at(ms: number, fire: () => void): void {
    this.timers.push({ at: this.now + ms, n: this.n++, fire });
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.at(ms, resolve));
  }
  async settle(): Promise<void> {
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  }
  /** Fires the earliest timer; false when none is left. */
  async step(): Promise<boolean> {
    await this.settle();
    this.timers.sort((a, b) => a.at - b.at || a.n - b.n);
    const next = this.timers.shift();
    if (!next) return false;
    this.now = Math.max(this.now, next.at);
    next.fire();
    return true;
  }
}

interface Queued {
  body: ProvisioningMessage;
  attempts: number;
  dueAt: number;
}

/** The provisioning queue as miniflare runs it: one batch at a time, FIFO by due time. */
class SimulatedQueue {
  ready: Queued[] = [];
  busy = false;
  batches: Array<{ startedAt: number; endedAt?: number; ids: string[] }> = [];
  private flushAt: number | null = null;
  constructor(
    private readonly time: VirtualTime,
    private readonly run: (batch: MessageBatch<ProvisioningMessage>) => Promise<void>,
    private readonly batchTimeoutMs = 1_000,
  ) {}
  send(body: ProvisioningMessage, options?: { delaySeconds?: number }, attempts = 1): void {
    const delay = (options?.delaySeconds ?? 0) * 1000;
    this.time.at(delay, () => {
      this.ready.push({ body, attempts, dueAt: this.time.now });
      this.schedule();
    });
  }
  private schedule(): void {
    if (this.busy || this.ready.length === 0) return;
    const full = this.ready.length >= QUEUE_BATCH_MESSAGES;
    const at = full ? this.time.now : (this.ready[0] as Queued).dueAt + this.batchTimeoutMs;
    if (this.flushAt !== null && this.flushAt <= at) return;
    this.flushAt = at;
    this.time.at(at - this.time.now, () => {
      if (this.flushAt === at) void this.flush();
    });
  }
  private async flush(): Promise<void> {
    this.flushAt = null;
    if (this.busy || this.ready.length === 0) return;
    this.busy = true;
    const taken = this.ready.splice(0, QUEUE_BATCH_MESSAGES);
    const record = {
      startedAt: this.time.now,
      ids: taken.map((q) => (q.body as { deliveryId: string }).deliveryId),
    } as { startedAt: number; endedAt?: number; ids: string[] };
    this.batches.push(record);
    const outcomes = taken.map(() => ({ retried: false, delaySeconds: 0 }));
    const messages = taken.map((q, i) => ({
      id: `m${i}`,
      timestamp: new Date(this.time.now),
      attempts: q.attempts,
      body: q.body,
      ack: () => undefined,
      retry: (o?: { delaySeconds?: number }) => {
        outcomes[i] = { retried: true, delaySeconds: o?.delaySeconds ?? 0 };
      },
    }));
    await this.run({ queue: 'provisioning', messages } as unknown as MessageBatch<ProvisioningMessage>);
    record.endedAt = this.time.now;
    taken.forEach((q, i) => {
      const o = outcomes[i] as { retried: boolean; delaySeconds: number };
      if (o.retried) this.send(q.body, { delaySeconds: o.delaySeconds }, q.attempts + 1);
    });
    this.busy = false;
    this.schedule();
  }
}

/** A world of sites, each delivery to one of them; slow sites' receivers hold every request 15 s. */
function world(slowSites: number, budgetMs: number) {
  const time = new VirtualTime();
  const siteOf = new Map<string, string>();
  const liveAt = new Map<string, number>();
  const tries = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let mostInFlight = 0;
  const held = new Set<string>();
  // The deliver handler as runtime-patch.ts does it: hold the site (else SiteBusy), send, release.
  const handlers: Handlers = {
    deliver: async (m) => {
      if (liveAt.has(m.deliveryId)) return;
      const site = siteOf.get(m.deliveryId) as string;
      if (held.has(site)) throw new SiteBusy(DEFER_SECONDS);
      held.add(site);
      inFlight.set(site, (inFlight.get(site) ?? 0) + 1);
      mostInFlight = Math.max(mostInFlight, inFlight.get(site) as number);
      tries.set(m.deliveryId, (tries.get(m.deliveryId) ?? 0) + 1);
      try {
        if (site.startsWith('slow')) {
          // The receiver holds the request 15 s; the send gives up after 10 s.
          await time.sleep(10_000);
          throw new Error('the webhook did not answer within 10 s');
        }
        await time.sleep(30);
        liveAt.set(m.deliveryId, time.now);
      } finally {
        held.delete(site);
        inFlight.set(site, (inFlight.get(site) ?? 1) - 1);
      }
    },
  };
  const late: Promise<unknown>[] = [];
  const fairness: Fairness = {
    budgetMs,
    waitUntil: (work) => void late.push(work),
    within: (work, ms) => Promise.race([work, time.sleep(ms).then((): typeof OVER_BUDGET => OVER_BUDGET)]),
  };
  const db = {
    select: () => ({
      from: () => ({
        where: async () => [...siteOf].map(([id, siteId]) => ({ id, siteId })),
      }),
    }),
  };
  const queue: SimulatedQueue = new SimulatedQueue(time, (batch) =>
    consumeProvisioning(batch, { db, queue } as unknown as ConsumerContext, handlers, fairness),
  );
  const sites = [...Array.from({ length: slowSites }, (_, i) => `slow-${i}`), 'healthy'];
  const deliver = (site: string, id: string) => {
    siteOf.set(id, site);
    queue.send({ type: 'deliver', deliveryId: id });
  };
  const runUntil = async (done: () => boolean, limitMs = 600_000) => {
    while (!done() && time.now <= limitMs) if (!(await time.step())) break;
  };
  return {
    time,
    queue,
    sites,
    deliver,
    runUntil,
    liveAt,
    tries,
    mostInFlight: () => mostInFlight,
  };
}

describe('fair delivery on the queue clock', () => {
  it("with 30 webhook targets holding each request 15 s, a healthy target's patch queued after them all is live within 5 s", async () => {
    const w = world(30, MESSAGE_TIME_BUDGET_MS);
    for (const site of w.sites.slice(0, 30)) w.deliver(site, `${site}-patch`);
    w.deliver('healthy', 'healthy-patch');
    await w.runUntil(() => w.liveAt.has('healthy-patch'));

    const live = w.liveAt.get('healthy-patch') as number;
    expect(live).toBeLessThanOrEqual(5_000);
    // The order: it went live while every slow receiver still held its first request (10 s).
    expect(live).toBeLessThan(10_000);
    // Three batches of slow patches went ahead of it; each ended at the budget, not at the receivers'.
    const ahead = w.queue.batches.filter((b) => !b.ids.includes('healthy-patch') && b.startedAt < live);
    expect(ahead.length).toBeGreaterThanOrEqual(3);
    for (const b of ahead.slice(0, 3))
      expect((b.endedAt as number) - b.startedAt).toBeLessThanOrEqual(MESSAGE_TIME_BUDGET_MS);
    // The healthy patch was tried once: never deferred nor doubled.
    expect(w.tries.get('healthy-patch')).toBe(1);
  });

  it('a consumer that waits on every send (no budget) would hold it back for the slow ones: the bound is the budget’s doing', async () => {
    const w = world(30, Number.POSITIVE_INFINITY);
    for (const site of w.sites.slice(0, 30)) w.deliver(site, `${site}-patch`);
    w.deliver('healthy', 'healthy-patch');
    await w.runUntil(() => w.liveAt.has('healthy-patch'));
    expect(w.liveAt.get('healthy-patch')).toBeGreaterThanOrEqual(30_000);
  });

  it('a slow site with many patches has one in flight at a time, and the others wait without a try', async () => {
    const w = world(1, MESSAGE_TIME_BUDGET_MS);
    for (let i = 0; i < 12; i++) w.deliver('slow-0', `slow-${i}`);
    w.deliver('healthy', 'healthy-patch');
    await w.runUntil(() => w.time.now >= 60_000);
    expect(w.mostInFlight()).toBe(1);
    expect(w.liveAt.get('healthy-patch')).toBeLessThanOrEqual(5_000);
    // In a minute a slow site is tried at most once per 10 s hold: its waiting copies cost no tries.
    const slowTries = [...w.tries].filter(([id]) => id.startsWith('slow')).reduce((n, [, t]) => n + t, 0);
    expect(slowTries).toBeLessThanOrEqual(7);
  });
});
