/**
 * The Worker's handlers (functions/worker.ts) served from this Node process on a local port:
 * `fetch` over HTTP, Miniflare's `/cdn-cgi/handler/scheduled` trigger route, `scheduled` and
 * `queue` on demand. The caller hands in the environment, Durable Object namespaces and the
 * provisioning queue (./queues.ts), so a test file (test/helpers/in-process-app.ts) and the
 * in-process project's shared Worker (test/node-world.ts) run it alike.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { neonConfig } from '@neondatabase/serverless';
import ws from 'ws';
import type { Bindings } from '../../functions/config';
import type { WorkerOptions } from '../../functions/container';
import type { ProvisioningMessage } from '../../functions/domain/queue-messages';
import { buildWorker } from '../../functions/worker';
import type { Producer } from './queues';

/** What {@link serveWorker} needs. */
export interface ServeWorkerOptions {
  /** The Worker's variables and secrets. */
  vars: Record<string, string>;
  /** Durable Object namespaces by binding name. */
  objects: Record<string, unknown>;
  /** The PROVISIONING queue producer. */
  queue: Producer;
  /** The handlers' builder: functions/worker.ts's as this process imports it, or a bundle's (./bundle.ts). */
  buildWorker?: typeof buildWorker;
  /** The Worker's options (a test's clock, the queue's time budget); the deployed Worker's when omitted. */
  worker?: WorkerOptions;
  /** Port to listen on (127.0.0.1); a free one when omitted. */
  port?: number;
}

/** A Worker served from this process. */
export interface ServedWorker {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Runs the minute cron's handler once. */
  runScheduled(): Promise<void>;
  /** Hands `batch` to the queue handler. */
  runQueue(batch: MessageBatch<ProvisioningMessage>): Promise<void>;
  /** Waits for work left running past a response or a batch (its `waitUntil`). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Serves the Worker's handlers with `options`' bindings. */
export async function serveWorker(options: ServeWorkerOptions): Promise<ServedWorker> {
  const worker = (options.buildWorker ?? buildWorker)(options.worker);
  // Node has no WebSocket of its own before 22; the driver's pool reaches the proxy through ws.
  neonConfig.webSocketConstructor = ws;
  const env = { ...options.vars, ...options.objects, PROVISIONING: options.queue } as unknown as Bindings;
  const waiting = new Set<Promise<unknown>>();
  const ctx = {
    waitUntil: (work: Promise<unknown>) => {
      const done = work.catch(() => undefined).finally(() => waiting.delete(done));
      waiting.add(done);
    },
    passThroughOnException: () => undefined,
    props: {},
  } as unknown as ExecutionContext;
  const runScheduled = () => worker.scheduled({} as ScheduledController, env);
  const server = serve({
    fetch: async (req) => {
      if (new URL(req.url).pathname === '/cdn-cgi/handler/scheduled') {
        await runScheduled();
        return new Response('ok');
      }
      return worker.fetch(req, env, ctx);
    },
    hostname: '127.0.0.1',
    port: options.port ?? 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const settled = async () => {
    while (waiting.size > 0) await Promise.all(waiting);
  };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    runScheduled,
    runQueue: (batch) => worker.queue(batch, env, ctx),
    settled,
    async stop() {
      await settled();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
