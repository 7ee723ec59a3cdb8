/**
 * What a test file starts once before its first test and stops after its last, handed to the
 * file as a plain value: `const world = connectionsWorldForFile()` instead of a `let`, a
 * `beforeAll` and an `afterAll` of its own in every file.
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { type ConnectionsWorld, type Seeded, seed, startConnectionsWorld } from './connections';
import { type Receiver, startReceiver } from './receiver';

/**
 * Runs `start` in the file's `beforeAll` and `stop` in its `afterAll` (when it started); the
 * value returned reads what `start` made, so a test or a later hook uses it like the value itself.
 */
export function forFile<T extends object>(start: () => Promise<T>, stop: (value: T) => Promise<void>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started) await stop(started);
  });
  const ready = (key: string | symbol): T => {
    if (started) return started;
    throw new Error(`${String(key)} read before the file's beforeAll started it`);
  };
  return new Proxy({} as T, {
    // Not a promise until started: a value may be awaited before its file's beforeAll ran.
    get: (_, key) => {
      if (!started && key === 'then') return undefined;
      const value = Reflect.get(ready(key), key);
      // A method runs on the started value itself (class instances may keep private state).
      return typeof value === 'function' ? value.bind(started) : value;
    },
    has: (_, key) => Reflect.has(ready(key), key),
    ownKeys: () => Reflect.ownKeys(ready('keys')),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(ready(key), key),
  });
}

/** The file's connections world (receiver, stand-ins and a Worker wired to them), `env()` on top, read when it starts. */
export function connectionsWorldForFile(env: () => Record<string, string> = () => ({})): ConnectionsWorld {
  return forFile(
    () => startConnectionsWorld(env()),
    (world) => world.stop(),
  );
}

/** A receiver of the file's own (for policy or patch deliveries), started before its first test. */
export function receiverForFile(): Receiver {
  return forFile(startReceiver, (receiver) => receiver.close());
}

/** A fresh account's project with `siteCount` sites, made through the Worker at `baseUrl()` (the shared one by default) before the file's first test. */
export function seededForFile(siteCount: number, baseUrl: () => string = () => inject('baseUrl')): Seeded {
  return forFile(
    () => seed(baseUrl(), siteCount),
    async () => undefined,
  );
}
