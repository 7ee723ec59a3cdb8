/**
 * Starts the stand-ins the local stack needs for outside systems that cannot run on this
 * machine: the MongoDB Atlas Admin API (unless MONGODB_ADMIN_URL is given) with a MongoDB
 * endpoint that logs its users in (unless MONGODB_PUBLIC_HOST is given), AWS IAM/S3
 * (unless IAM_ACCESS_KEY_ID is given), the Cloudflare, Vercel and Fly APIs of delivery targets
 * (each unless its CLOUDFLARE_API_URL, VERCEL_API_URL or FLY_API_URL is given), and with
 * `signIn`, Google's and GitHub's sign-in
 * (each unless one of its endpoints is given). Their state is kept in `${dataDir}/stand-ins/`.
 * Beside the Google stand-in's keys and issuer, Google's own are accepted (GOOGLE_PUBLISHED_JWKS_URL,
 * default Google's published key set), so a real Google ID token from a device signs in locally.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GOOGLE_PUBLISHED } from '../../../functions/config';
import { startAppleStandIn } from './apple-stand-in';
import { startAwsStandIn } from './aws-stand-in';
import { startCloudflareStandIn } from './cloudflare-stand-in';
import { startFlyStandIn } from './fly-stand-in';
import { startAtlasStandIn } from './mongodb-atlas-stand-in';
import { type MongoWire, type PasswordLookup, startMongoWire } from './mongodb-wire';
import { startSignInStandIn } from './sign-in-stand-in';
import { startVercelStandIn } from './vercel-stand-in';

const GOOGLE_VARS = ['GOOGLE_AUTHORIZE_URL', 'GOOGLE_TOKEN_URL', 'GOOGLE_JWKS_URL', 'GOOGLE_ISSUERS'];
const GITHUB_VARS = ['GITHUB_AUTHORIZE_URL', 'GITHUB_TOKEN_URL', 'GITHUB_API_URL'];
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
    const google = !GOOGLE_VARS.some((name) => given[name]);
    const github = !GITHUB_VARS.some((name) => given[name]);
    if (opts.signIn && (google || github)) {
      const signIn = await startSignInStandIn();
      stops.push(() => signIn.stop());
      for (const [name, value] of Object.entries(signIn.env)) {
        if ((google && GOOGLE_VARS.includes(name)) || (github && GITHUB_VARS.includes(name)))
          env[name] = value;
      }
      if (google) {
        // Google's own tokens too: its published keys after the stand-in's, its issuers beside the stand-in's.
        const published = given.GOOGLE_PUBLISHED_JWKS_URL || GOOGLE_PUBLISHED.jwksUrl;
        env.GOOGLE_JWKS_URL = `${signIn.env.GOOGLE_JWKS_URL},${published}`;
        env.GOOGLE_ISSUERS = `${signIn.env.GOOGLE_ISSUERS},${GOOGLE_PUBLISHED.issuers}`;
      }
      signInUrl = signIn.url;
      // The console's own sign-in goes to the same stand-in (it takes any client id and secret).
      for (const [provider, runs] of [
        ['GOOGLE', google],
        ['GITHUB', github],
      ] as const) {
        if (!runs || given[`CONSOLE_${provider}_CLIENT_ID`]) continue;
        env[`CONSOLE_${provider}_CLIENT_ID`] = `local-console-${provider.toLowerCase()}`;
        env[`CONSOLE_${provider}_CLIENT_SECRET`] = 'local-console-secret';
      }
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
