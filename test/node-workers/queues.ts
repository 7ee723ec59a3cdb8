/**
 * The provisioning queue for a Worker run in Node (./serve-worker.ts): one that keeps what was
 * sent for a test to hand on, and one that delivers it to the Worker's queue handler as
 * wrangler.toml's consumer does (batches of up to ten, retries after their delay, the
 * dead-letter queue after the last retry).
 */
import type { ProvisioningMessage } from '../../functions/domain/queue-messages';

/** The provisioning queue's producer binding, as far as the Worker uses it. */
export interface Producer {
  send(message: ProvisioningMessage, options?: QueueSendOptions): Promise<void>;
  sendBatch(
    messages: Iterable<MessageSendRequest<ProvisioningMessage>>,
    options?: QueueSendBatchOptions,
  ): Promise<void>;
}

/** What the queue handler did with one message of a batch. */
export type QueueOutcome =
  | { acked: true }
  | { acked: false; delaySeconds: number | undefined; retried: boolean };

/** `bodies` as one batch of `queue`, each tried `attempts` times so far, and what became of each. */
export function messageBatch(
  queue: string,
  bodies: readonly ProvisioningMessage[],
  attempts: number | readonly number[] = 1,
): { batch: MessageBatch<ProvisioningMessage>; outcomes: QueueOutcome[] } {
  const outcomes: QueueOutcome[] = bodies.map(() => ({
    acked: false,
    delaySeconds: undefined,
    retried: false,
  }));
  const messages = bodies.map((body, i) => ({
    id: `m${i}`,
    timestamp: new Date(),
    attempts: typeof attempts === 'number' ? attempts : (attempts[i] ?? 1),
    body,
    ack: () => {
      outcomes[i] = { acked: true };
    },
    retry: (options?: { delaySeconds?: number }) => {
      outcomes[i] = { acked: false, delaySeconds: options?.delaySeconds, retried: true };
    },
  }));
  const batch = {
    queue,
    messages,
    ackAll: () => {
      for (const m of messages) m.ack();
    },
    retryAll: (options?: { delaySeconds?: number }) => {
      for (const m of messages) m.retry(options);
    },
  } as unknown as MessageBatch<ProvisioningMessage>;
  return { batch, outcomes };
}

/** A producer that keeps every message sent, and its delay, for the test to check or hand on. */
export function keepingQueue() {
  const sent: ProvisioningMessage[] = [];
  const delays: Array<number | undefined> = [];
  const queue: Producer = {
    async send(message, options) {
      sent.push(message);
      delays.push(options?.delaySeconds);
    },
    async sendBatch(messages) {
      for (const m of messages) {
        sent.push(m.body);
        delays.push(m.delaySeconds);
      }
    },
  };
  return { queue, sent, delays };
}

/** wrangler.toml's consumer settings of the provisioning queue. */
const MAX_BATCH_SIZE = 10;
const MAX_RETRIES = 10;
const RETRY_DELAY_SECONDS = 2;
const QUEUE = 'provisioning';
const DEAD_LETTERS = 'provisioning-dlq';

interface Pending {
  body: ProvisioningMessage;
  attempts: number;
}

/**
 * A producer whose messages reach `consume` (the Worker's queue handler), one batch at a time:
 * a message neither acked nor retried is acked when its batch succeeds and retried when it
 * throws; one that fails its last retry goes to the dead-letter queue's batch.
 */
export function deliveringQueue(consume: (batch: MessageBatch<ProvisioningMessage>) => Promise<void>) {
  const ready: Record<string, Pending[]> = { [QUEUE]: [], [DEAD_LETTERS]: [] };
  const timers = new Set<NodeJS.Timeout>();
  let running: Promise<void> | undefined;
  let stopped = false;

  const later = (seconds: number, work: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, seconds * 1000);
    timer.unref();
    timers.add(timer);
  };
  const enqueue = (queue: string, item: Pending, delaySeconds = 0) => {
    if (stopped) return;
    if (delaySeconds > 0) return later(delaySeconds, () => enqueue(queue, item));
    ready[queue]?.push(item);
    pump();
  };
  const deliver = async (queue: string, items: Pending[]) => {
    const { batch, outcomes } = messageBatch(
      queue,
      items.map((item) => item.body),
      items.map((item) => item.attempts),
    );
    const failed = await consume(batch).then(
      () => false,
      (err: unknown) => {
        console.error(`[queue] the ${queue} batch failed:`, err);
        return true;
      },
    );
    items.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.acked || (!failed && !outcome?.retried)) return;
      const delay = (outcome && !outcome.acked ? outcome.delaySeconds : undefined) ?? RETRY_DELAY_SECONDS;
      if (queue === DEAD_LETTERS) return;
      if (item.attempts > MAX_RETRIES) enqueue(DEAD_LETTERS, { body: item.body, attempts: 1 });
      else enqueue(queue, { body: item.body, attempts: item.attempts + 1 }, delay);
    });
  };
  const pump = () => {
    if (running || stopped) return;
    const queue = Object.keys(ready).find((name) => (ready[name]?.length ?? 0) > 0);
    if (queue === undefined) return;
    const items = ready[queue]?.splice(0, MAX_BATCH_SIZE) ?? [];
    running = (async () => {
      // Messages sent in the same turn go out together, as a batch collects them.
      await new Promise((resolve) => setImmediate(resolve));
      const more = ready[queue]?.splice(0, MAX_BATCH_SIZE - items.length) ?? [];
      await deliver(queue, [...items, ...more]);
    })().finally(() => {
      running = undefined;
      pump();
    });
  };

  const queue: Producer = {
    async send(message, options) {
      enqueue(QUEUE, { body: message, attempts: 1 }, options?.delaySeconds);
    },
    async sendBatch(messages, options) {
      for (const m of messages)
        enqueue(QUEUE, { body: m.body, attempts: 1 }, m.delaySeconds ?? options?.delaySeconds);
    },
  };
  return {
    queue,
    /** Stops delivering: what is pending is dropped, the batch under way finishes. */
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await running;
    },
  };
}
