/**
 * The Worker in this Node process (test/node-workers/serve-worker.ts): its `fetch` served on a free local port and its `scheduled`
 * run on demand, with the shared stack's environment and real metadata database. For route
 * tests that need no workerd, and for tests that register a variant of their own (a database
 * engine) in the registry the Worker reads: the registry is this process's, so what a test
 * registers the app sees. Its clock is this process's, so a test can set it (vi.setSystemTime),
 * or one the test hands in (`clock`), which every request's and job's context then carries.
 * Durable Objects are not here unless a test hands in namespaces (startDurableObjects); without
 * them a route that needs one answers 500. Queue messages are kept in `sent`, for a test to hand
 * on or to check. A queue batch waits for every delivery unless a test hands in `queueTimer`
 * (what ends a delivery's time in its batch); work past it runs on (`settled` waits for it).
 */
import { inject } from 'vitest';
import type { ProvisioningMessage } from '../../functions/domain/queue-messages';
import type { Clock } from '../../functions/request-context';
import { keepingQueue, messageBatch } from '../node-workers/queues';
import { serveWorker } from '../node-workers/serve-worker';

/** A running in-process app. */
export interface InProcessApp {
  /** Its base URL, e.g. `http://127.0.0.1:41234`, for `api(baseUrl)` and the seed helpers. */
  baseUrl: string;
  /** Messages the app put on the provisioning queue, oldest first. */
  sent: ProvisioningMessage[];
  /** The delay each message of `sent` was sent with (same index; undefined: none). */
  delays: Array<number | undefined>;
  /** Runs the minute cron's handler (the reconciler) once, here. */
  runScheduled(): Promise<void>;
  /**
   * Hands `messages` to the Worker's queue handler as one batch of the provisioning queue, here,
   * and answers what became of each (acked, or retried with its delay).
   */
  runQueue(messages: readonly ProvisioningMessage[], attempts?: number): Promise<QueueOutcome[]>;
  /** Waits for the work batches left running past their time budget (their `waitUntil`). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** What the queue handler did with one message of a batch. */
export type QueueOutcome = { acked: true } | { acked: false; delaySeconds: number | undefined };

/** A Durable Object namespace whose every use fails: no route these tests call reaches one. */
const absentObjects = {
  idFromName() {
    throw new Error('no Durable Objects in the in-process app');
  },
  get() {
    throw new Error('no Durable Objects in the in-process app');
  },
};

/** Durable Object namespaces for the app, as {@link startDurableObjects} gives them. */
export interface InProcessObjects {
  ONE_TIME_CODES: unknown;
  RATE_COUNTERS: unknown;
}

/** Starts the app on the shared stack's environment, with `overrides` on top (and `clock`, if given, as its clock). */
export async function startInProcessApp(
  overrides: Record<string, string> = {},
  objects?: InProcessObjects,
  clock?: Clock,
  queueTimer?: () => Promise<void>,
): Promise<InProcessApp> {
  const { queue, sent, delays } = keepingQueue();
  const served = await serveWorker({
    vars: { ...inject('workerEnv'), ...overrides },
    objects: {
      ONE_TIME_CODES: objects?.ONE_TIME_CODES ?? absentObjects,
      RATE_COUNTERS: objects?.RATE_COUNTERS ?? absentObjects,
    },
    queue,
    // A batch waits for every delivery unless a test hands in the timer that ends its budget (queues/consumer.ts).
    worker: queueTimer
      ? { clock, queueBudgetMs: 1, queueTimer }
      : { clock, queueBudgetMs: Number.POSITIVE_INFINITY },
  });
  return {
    baseUrl: served.baseUrl,
    sent,
    delays,
    runScheduled: served.runScheduled,
    async runQueue(bodies, attempts = 1) {
      const { batch, outcomes } = messageBatch('provisioning', bodies, attempts);
      await served.runQueue(batch);
      return outcomes.map((o) => (o.acked ? o : { acked: false, delaySeconds: o.delaySeconds }));
    },
    settled: served.settled,
    stop: served.stop,
  };
}
