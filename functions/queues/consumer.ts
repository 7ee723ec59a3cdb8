/**
 * The queue consumer: dispatches provisioning messages, retries failures with exponential
 * backoff, and records what reaches the dead-letter queue.
 */

import type { Db } from '../../db/client';
import { deadLetters } from '../../db/schema';
import type { Dependencies } from '../container';
import type { ProvisioningMessage } from '../domain/queue-messages';
import { MAX_RETRIES, retryDelaySeconds } from '../lib/backoff';
import { newId } from '../lib/ids';
import { log } from '../lib/logger';
import type { JobContext } from '../request-context';
import { markFollowUpsDead } from '../use-cases/delivery/confirm';
import { markDead } from '../use-cases/delivery/delivery-status';

/** What a message handler gets: the services and a job's context. */
export type ConsumerContext = Dependencies & JobContext;

/** Handles one message type; throwing retries the message. */
export type MessageHandler<T extends ProvisioningMessage['type']> = (
  message: Extract<ProvisioningMessage, { type: T }>,
  ctx: ConsumerContext,
) => Promise<void>;

/** Registered handlers, one per message type. */
export type Handlers = { [T in ProvisioningMessage['type']]?: MessageHandler<T> };

/** Runs each message through its handler; failures retry with backoff. */
export async function consumeProvisioning(
  batch: MessageBatch<ProvisioningMessage>,
  ctx: ConsumerContext,
  handlers: Handlers,
): Promise<void> {
  for (const message of batch.messages) {
    const handler = handlers[message.body.type] as MessageHandler<typeof message.body.type> | undefined;
    try {
      if (!handler) throw new Error(`no handler for ${message.body.type}`);
      await handler(message.body as never, ctx);
      message.ack();
    } catch (err) {
      log.error(`provisioning ${message.body.type} failed (attempt ${message.attempts}):`, err);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
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
