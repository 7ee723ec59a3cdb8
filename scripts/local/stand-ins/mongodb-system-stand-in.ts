/**
 * MongoDB for `npm start`: the Atlas Admin API stand-in (unless MONGODB_ADMIN_URL is given) with a
 * MongoDB endpoint that logs its users in (unless MONGODB_PUBLIC_HOST is given).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAtlasStandIn } from './mongodb-atlas-stand-in';
import { type MongoWire, type PasswordLookup, startMongoWire } from './mongodb-wire';
import type { OutsideSystemStandIn } from './outside-system-stand-in';

/**
 * The local MongoDB endpoint on the port it had before in this data folder (apps keep the
 * MONGODB_URI they were handed across restarts), or on a free one, remembered in `file`.
 */
async function startStableMongoWire(file: string, passwordFor: PasswordLookup): Promise<MongoWire> {
  let port: number | undefined;
  try {
    port = (JSON.parse(await readFile(file, 'utf8')) as { port?: number }).port;
  } catch {
    // first start in this folder
  }
  const wire = await startMongoWire({ port, passwordFor }).catch(() => startMongoWire({ passwordFor }));
  if (wire.port !== port) await writeFile(file, JSON.stringify({ port: wire.port }), { mode: 0o600 });
  return wire;
}

/** MongoDB's stand-in. */
export const mongodbStandIn: OutsideSystemStandIn = {
  system: 'mongodb',
  async start(dir, given) {
    if (given.MONGODB_ADMIN_URL) return null;
    const atlas = await startAtlasStandIn({ stateFile: join(dir, 'mongodb-atlas.json') });
    const env: Record<string, string> = {
      MONGODB_ADMIN_URL: atlas.adminUrl,
      MONGODB_ADMIN_KEY: atlas.adminKey,
    };
    let wire: MongoWire | undefined;
    if (!given.MONGODB_PUBLIC_HOST) {
      try {
        wire = await startStableMongoWire(join(dir, 'mongodb-wire.json'), (user, from) =>
          atlas.passwordFor(user, from),
        );
      } catch (err) {
        await atlas.stop().catch(() => undefined);
        throw err;
      }
      env.MONGODB_PUBLIC_HOST = wire.host;
    }
    return {
      env,
      async stop() {
        await atlas.stop().catch(() => undefined);
        await wire?.stop().catch(() => undefined);
      },
    };
  },
};
