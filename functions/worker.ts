/**
 * The Worker's three handlers: `fetch` serves the management API and the auth service, `queue`
 * consumes the provisioning queue and its dead-letter queue, `scheduled` runs the minute
 * reconciler. Kept apart from index.ts (which adds the Durable Object classes) so Node can run
 * them in process (test/helpers/in-process-app.ts). The queue's and the reconciler's modules
 * (jobs.ts) are imported by their first batch or tick, like the auth edge and the management side
 * by their first request (app.ts): an isolate starts with its Durable Object classes alone.
 */
import { buildFetch } from './app';
import type { Bindings } from './config';
import type { WorkerOptions } from './container';
import type { ProvisioningMessage } from './domain/queue-messages';

/** The Worker's handlers, with `options` (a test's clock) in every context they build. */
export const buildWorker = (options: WorkerOptions = {}) =>
  ({
    fetch: buildFetch(options),

    async queue(
      batch: MessageBatch<ProvisioningMessage>,
      env: Bindings,
      invocation?: ExecutionContext,
    ): Promise<void> {
      const { consumeBatch } = await import('./jobs');
      await consumeBatch(batch, env, options, invocation);
    },

    async scheduled(_controller: ScheduledController, env: Bindings): Promise<void> {
      const { reconcile } = await import('./jobs');
      await reconcile(env, options);
    },
  }) satisfies ExportedHandler<Bindings, ProvisioningMessage>;

/** The Worker's handlers. */
export const worker = buildWorker();
