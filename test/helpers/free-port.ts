/** Starting a server on a port found free, which another process may take before it binds. */
import { freePort } from '../../scripts/local/net';

/** How many ports {@link onFreePort} tries before it gives up. */
const PORT_TRIES = 3;

/**
 * `start` on a free port. A port found free can be taken by another process before the server
 * binds it, seconds later (a stack starts its database first); then `start` runs again on another
 * port, so a run's other stacks never fail this one. `start` must clean up what it started when it
 * fails (startLocalStack does).
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      const taken = /Address already in use|EADDRINUSE/.test(String((err as Error)?.message ?? err));
      if (!taken || attempt >= PORT_TRIES) throw err;
    }
  }
}
