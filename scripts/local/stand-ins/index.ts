/**
 * Starts the stand-ins the local stack needs for outside systems that cannot run on this
 * machine: the MongoDB Atlas Admin API (unless MONGODB_ADMIN_URL is given) with a MongoDB
 * endpoint that logs its users in (unless MONGODB_PUBLIC_HOST is given), AWS IAM/S3
 * (unless IAM_ACCESS_KEY_ID is given), the Cloudflare, Vercel and Fly APIs of delivery targets
 * (each unless its CLOUDFLARE_API_URL, VERCEL_API_URL or FLY_API_URL is given), and with
 * `signIn`, Apple's and every provider's of sign-in/provider-stand-ins.ts (each unless one of its
 * endpoints is given; what each sets is its own: sign-in/google-stand-in.ts also accepts Google's
 * published keys). Their state is kept in `${dataDir}/stand-ins/`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAppleStandIn } from './apple-stand-in';
import { startAwsStandIn } from './aws-stand-in';
import { startCloudflareStandIn } from './cloudflare-stand-in';
import { startFlyStandIn } from './fly-stand-in';
import { startAtlasStandIn } from './mongodb-atlas-stand-in';
import { type MongoWire, type PasswordLookup, startMongoWire } from './mongodb-wire';
import { PROVIDER_STAND_INS } from './sign-in/provider-stand-ins';
import { startSignInStandIn } from './sign-in-stand-in';
import { startVercelStandIn } from './vercel-stand-in';

const APPLE_VARS = ['APPLE_AUTHORIZE_URL', 'APPLE_TOKEN_URL', 'APPLE_JWKS_URL', 'APPLE_ISSUER'];

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

/** Running stand-ins and the Worker variables that point at them. */
export interface StandIns {
  env: Record<string, string>;
  /** Where the sign-in stand-in answers, when it runs. */
  signInUrl?: string;
  stop(): Promise<void>;
}

/** Starts what `given` (the variables already chosen) does not point elsewhere. */
export async function startStandIns(
  dataDir: string,
  given: Record<string, string | undefined>,
  opts: { signIn?: boolean } = {},
): Promise<StandIns> {
  const dir = join(dataDir, 'stand-ins');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];
  let signInUrl: string | undefined;
  try {
    if (!given.MONGODB_ADMIN_URL) {
      const atlas = await startAtlasStandIn({ stateFile: join(dir, 'mongodb-atlas.json') });
      stops.push(() => atlas.stop());
      env.MONGODB_ADMIN_URL = atlas.adminUrl;
      env.MONGODB_ADMIN_KEY = atlas.adminKey;
      if (!given.MONGODB_PUBLIC_HOST) {
        const wire = await startStableMongoWire(join(dir, 'mongodb-wire.json'), (user, from) =>
          atlas.passwordFor(user, from),
        );
        stops.push(() => wire.stop());
        env.MONGODB_PUBLIC_HOST = wire.host;
      }
    }
    if (!given.IAM_ACCESS_KEY_ID) {
      const aws = await startAwsStandIn({ stateFile: join(dir, 'aws.json') });
      stops.push(() => aws.stop());
      env.IAM_ENDPOINT = aws.url;
      env.STORAGE_ENDPOINT = aws.url;
      env.IAM_ACCESS_KEY_ID = aws.accessKeyId;
      env.IAM_SECRET_ACCESS_KEY = aws.secretAccessKey;
    }
    // The delivery targets' platforms (contract §11), each unless its API URL is given.
    const platforms = [
      ['CLOUDFLARE_API_URL', startCloudflareStandIn, '/client/v4'],
      ['VERCEL_API_URL', startVercelStandIn, ''],
      ['FLY_API_URL', startFlyStandIn, ''],
    ] as const;
    for (const [name, start, suffix] of platforms) {
      if (given[name]) continue;
      const standIn = await start();
      stops.push(() => standIn.stop());
      env[name] = `${standIn.url}${suffix}`;
    }
    if (opts.signIn && !APPLE_VARS.some((name) => given[name])) {
      const apple = await startAppleStandIn();
      stops.push(() => apple.stop());
      Object.assign(env, apple.env);
    }
    // Each provider whose endpoints no variable gives, through the one sign-in stand-in.
    const standing = PROVIDER_STAND_INS.filter((p) => !Object.keys(p.env('')).some((name) => given[name]));
    if (opts.signIn && standing.length > 0) {
      const signIn = await startSignInStandIn();
      stops.push(() => signIn.stop());
      for (const provider of standing) {
        Object.assign(env, provider.localEnv?.(signIn.url, given) ?? provider.env(signIn.url));
        // The console's own sign-in goes to the same stand-in (it takes any client id and secret).
        const upper = provider.name.toUpperCase();
        if (!provider.consoleSignIn || given[`CONSOLE_${upper}_CLIENT_ID`]) continue;
        env[`CONSOLE_${upper}_CLIENT_ID`] = `local-console-${provider.name}`;
        env[`CONSOLE_${upper}_CLIENT_SECRET`] = 'local-console-secret';
      }
      signInUrl = signIn.url;
    }
  } catch (err) {
    for (const stop of stops) await stop().catch(() => undefined);
    throw err;
  }
  return {
    env,
    ...(signInUrl ? { signInUrl } : {}),
    async stop() {
      for (const stop of stops) await stop().catch(() => undefined);
    },
  };
}
