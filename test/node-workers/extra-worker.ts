/**
 * An extra Worker (test/helpers/worker.ts startExtraWorker) for the in-process project: the
 * Worker's handlers served from the test file's own process (./serve-worker.ts) with Durable
 * Objects of its own (./durable-objects.ts) and a delivering provisioning queue (./queues.ts),
 * on the shared services' variables. What needs workerd itself (its Miniflare object, a restart
 * from stored objects, another entry or config) stays in the workerd projects.
 */
import { inject } from 'vitest';
import * as entry from '../../functions/index';
import { freePort } from '../../scripts/local/net';
import { nodeDurableObjects } from './durable-objects';
import { deliveringQueue } from './queues';
import { type ServedWorker, serveWorker } from './serve-worker';

/** A Worker served from this process on `port`, with `vars`. */
async function serveOn(port: number, vars: Record<string, string>): Promise<ServedWorker> {
  let consume: ServedWorker['runQueue'] = async () => undefined;
  const provisioning = deliveringQueue((batch) => consume(batch));
  const objects = nodeDurableObjects(inject('objectBindings') ?? {}, entry, {
    ...vars,
    PROVISIONING: provisioning.queue,
  });
  try {
    const worker = await serveWorker({ vars, objects, queue: provisioning.queue, port });
    consume = worker.runQueue;
    return {
      ...worker,
      async stop() {
        await provisioning.stop();
        await worker.stop();
        for (const namespace of Object.values(objects)) namespace.stop();
      },
    };
  } catch (err) {
    await provisioning.stop();
    for (const namespace of Object.values(objects)) namespace.stop();
    throw err;
  }
}

/** Starts a Worker in this process with the shared variables, its own public URLs and `env` on top. */
export async function startNodeWorker(env: Record<string, string>): Promise<ServedWorker> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const local = `http://127.0.0.1:${port}`;
    try {
      return await serveOn(port, {
        ...inject('workerEnv'),
        PUBLIC_BASE_URL: local,
        PUBLIC_AUTH_URL: local,
        ...env,
      });
    } catch (err) {
      // A port found free can be taken before the server binds it: another port, a few times.
      if (attempt < 3 && (err as { code?: string }).code === 'EADDRINUSE') continue;
      throw err;
    }
  }
}
