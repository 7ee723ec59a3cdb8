/**
 * The queue consumer: dispatches provisioning messages, retries failures with exponential
 * backoff, keeps one site's slow target from holding up the others (docs/contract.md §14), and
 * records what reaches the dead-letter queue.
 */

import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { deadLetters, deliveries } from '../../db/schema';
import type { Dependencies } from '../container';
import type { ProvisioningMessage } from '../domain/queue-messages';
import { MAX_RETRIES, retryDelaySeconds } from '../lib/backoff';
import { newId } from '../lib/ids';
import { log } from '../lib/logger';
import type { JobContext } from '../request-context';
import { markFollowUpsDead } from '../use-cases/delivery/confirm';
import { markDead } from '../use-cases/delivery/delivery-status';
import { SiteBusy } from '../use-cases/delivery/site-hold';

/** What a message handler gets: the services and a job's context. */
export type ConsumerContext = Dependencies & JobContext;

/** Handles one message type; throwing retries the message. */
export type MessageHandler<T extends ProvisioningMessage['type']> = (
  message: Extract<ProvisioningMessage, { type: T }>,
  ctx: ConsumerContext,
) => Promise<void>;

/** Registered handlers, one per message type. */
export type Handlers = { [T in ProvisioningMessage['type']]?: MessageHandler<T> };

/** What `within` answers when the time ran out before the work settled. */
export const OVER_BUDGET = Symbol('over budget');

/**
 * How the consumer keeps one target from holding up the rest (docs/contract.md §14): how long a
 * batch waits on one delivery before leaving it to finish on its own, the timer that measures it
 * (the queue's clock: tests hand in their own), and how work outlives the batch.
 */
export interface Fairness {
  /** How long a batch waits on one delivery message (ms). */
  budgetMs: number;
  /** `work`'s result, or OVER_BUDGET once `ms` passed first. */
  within<T>(work: Promise<T>, ms: number): Promise<T | typeof OVER_BUDGET>;
  /** Keeps `work` running after the batch is answered (the invocation's `waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
}

/**
 * A delivery's time in a batch: a webhook held open or a slow platform costs its own site a
 * retry, never the batch (wrangler.toml's `queue_consumer_no_wait_for_wait_until` lets the next
 * batch start while it finishes).
 */
export const MESSAGE_TIME_BUDGET_MS = 1_000;

/**
 * Real timers (or `after`, resolving once `ms` passed on another clock), with `waitUntil` from
 * the invocation.
 */
export function realFairness(
  waitUntil: (work: Promise<unknown>) => void,
  budgetMs = MESSAGE_TIME_BUDGET_MS,
  after?: (ms: number) => Promise<void>,
): Fairness {
  return {
    budgetMs,
    waitUntil,
    within(work, ms) {
      if (after) return Promise.race([work, after(ms).then((): typeof OVER_BUDGET => OVER_BUDGET)]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const over = new Promise<typeof OVER_BUDGET>((resolve) => {
        timer = setTimeout(() => resolve(OVER_BUDGET), ms);
      });
      return Promise.race([work, over]).finally(() => clearTimeout(timer));
    },
  };
}

/** Message types that send to one site's target, and may finish after their batch. */
const SITE_WORK = new Set<ProvisioningMessage['type']>(['deliver', 'confirm-live']);

/**
 * The batch's messages in lanes that run side by side: one per site for its deliveries (in
 * order), and one for everything else (in order, as before). One statement reads the sites.
 */
async function lanesOf(
  db: Db,
  messages: readonly Message<ProvisioningMessage>[],
): Promise<Message<ProvisioningMessage>[][]> {
  const ids = messages.flatMap((m) =>
    SITE_WORK.has(m.body.type) ? [(m.body as { deliveryId: string }).deliveryId] : [],
  );
  const siteOf = new Map<string, string>();
  if (ids.length > 0) {
    const rows = await db
      .select({ id: deliveries.id, siteId: deliveries.targetId })
      .from(deliveries)
      .where(inArray(deliveries.id, ids))
      .catch((err: unknown) => {
        log.error('reading the sites of a batch failed; each delivery runs in a lane of its own:', err);
        return [];
      });
    for (const r of rows) siteOf.set(r.id, r.siteId);
  }
  const lanes = new Map<string, Message<ProvisioningMessage>[]>();
  for (const m of messages) {
    const id = SITE_WORK.has(m.body.type) ? (m.body as { deliveryId: string }).deliveryId : null;
    const key = id === null ? 'other' : `site:${siteOf.get(id) ?? id}`;
    lanes.set(key, [...(lanes.get(key) ?? []), m]);
  }
  return [...lanes.values()];
}

/**
 * Runs each message through its handler: deliveries of different sites side by side, a site's
 * own one after another, the rest in order. A failure retries with backoff; a delivery whose site
 * another consumer is sending to is deferred (sent again shortly, not a try); one still running
 * after the budget is left to finish on its own and its message retried after the backoff (it
 * finds the delivery done, or tries again), so the batch, and every other site, moves on.
 */
export async function consumeProvisioning(
  batch: MessageBatch<ProvisioningMessage>,
  ctx: ConsumerContext,
  handlers: Handlers,
  fairness: Fairness = realFairness(() => undefined, Number.POSITIVE_INFINITY),
): Promise<void> {
  const lanes = await lanesOf(ctx.db, batch.messages);
  await Promise.all(
    lanes.map(async (lane) => {
      for (const message of lane) await consumeOne(message, ctx, handlers, fairness);
    }),
  );
}

type Settled = { ok: true } | { ok: false; err: unknown };

async function consumeOne(
  message: Message<ProvisioningMessage>,
  ctx: ConsumerContext,
  handlers: Handlers,
  fairness: Fairness,
): Promise<void> {
  const { type } = message.body;
  const handler = handlers[type] as MessageHandler<typeof type> | undefined;
  const work: Promise<Settled> = (async () => {
    if (!handler) throw new Error(`no handler for ${type}`);
    await handler(message.body as never, ctx);
  })().then(
    () => ({ ok: true }),
    (err: unknown) => ({ ok: false, err }),
  );
  const outcome =
    SITE_WORK.has(type) && Number.isFinite(fairness.budgetMs)
      ? await fairness.within(work, fairness.budgetMs)
      : await work;
  if (outcome === OVER_BUDGET) {
    // Its site's target is slow: the work goes on without the batch, and the message comes back
    // after the backoff (a no-op once the work is done, the next try if it failed).
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    fairness.waitUntil(
      work.then((late) => {
        if (!late.ok && !(late.err instanceof SiteBusy))
          log.error(`provisioning ${type} failed after its batch (attempt ${message.attempts}):`, late.err);
      }),
    );
    return;
  }
  if (outcome.ok) return message.ack();
  if (outcome.err instanceof SiteBusy) return defer(message, ctx, outcome.err.delaySeconds);
  log.error(`provisioning ${type} failed (attempt ${message.attempts}):`, outcome.err);
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
}

/**
 * Sends a message for a busy site again after `delaySeconds` and acks this copy: waiting for
 * another consumer is not a try, so it never counts toward the dead-letter queue. If the send
 * fails, the queue's own retry brings it back instead.
 */
async function defer(message: Message<ProvisioningMessage>, ctx: ConsumerContext, delaySeconds: number) {
  try {
    await ctx.queue.send(message.body, { delaySeconds });
    message.ack();
  } catch (err) {
    log.error('deferring a message failed; the queue retries it:', err);
    message.retry({ delaySeconds });
  }
}

/**
 * Records every dead-lettered message so an operator (and the reconciler) can see it, with the
 * tries it had on the provisioning queue: a message reaches the dead-letter queue only after
 * its first try and every retry failed (the dead-letter queue's own `attempts` starts again at 1).
 */
export async function recordDeadLetters(batch: MessageBatch<ProvisioningMessage>, db: Db): Promise<void> {
  if (batch.messages.length === 0) return;
  // A live patch that exhausted its retries is `dead` until retried by hand (contract §11); a
  // network policy stays pending, for the reconciler converges it by itself.
  const dead = batch.messages.flatMap((m) => (m.body.type === 'deliver' ? [m.body.deliveryId] : []));
  if (dead.length > 0) await markDead(db, dead);
  // A follow-up (redeploy, Machine restarts) that exhausted its retries leaves its delivery dead too.
  await markFollowUpsDead(
    db,
    batch.messages.flatMap((m) => (m.body.type === 'confirm-live' ? [m.body.deliveryId] : [])),
  );
  await db.insert(deadLetters).values(
    batch.messages.map((m) => ({
      id: newId(),
      queue: batch.queue,
      body: m.body,
      attempts: MAX_RETRIES + 1,
    })),
  );
  for (const m of batch.messages) m.ack();
}
