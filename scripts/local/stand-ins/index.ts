/**
 * Starts the stand-ins the local stack needs for outside systems that cannot run on this
 * machine: each engine's and kind's (outside-system-stand-ins.ts: MongoDB Atlas with a MongoDB
 * endpoint, AWS IAM/S3; each unless its variables point it elsewhere), the Cloudflare, Vercel
 * and Fly APIs of delivery targets (each unless its CLOUDFLARE_API_URL, VERCEL_API_URL or
 * FLY_API_URL is given), and with
 * `signIn`, Apple's and every provider's of sign-in/provider-stand-ins.ts (each unless one of its
 * endpoints is given; what each sets is its own: sign-in/google-stand-in.ts also accepts Google's
 * published keys). Their state is kept in `${dataDir}/stand-ins/`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startAppleStandIn } from './apple-stand-in';
import { startCloudflareStandIn } from './cloudflare-stand-in';
import { startFlyStandIn } from './fly-stand-in';
import { OUTSIDE_SYSTEM_STAND_INS } from './outside-system-stand-ins';
import { PROVIDER_STAND_INS } from './sign-in/provider-stand-ins';
import { startSignInStandIn } from './sign-in-stand-in';
import { startVercelStandIn } from './vercel-stand-in';

const APPLE_VARS = ['APPLE_AUTHORIZE_URL', 'APPLE_TOKEN_URL', 'APPLE_JWKS_URL', 'APPLE_ISSUER'];

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
    // Each engine's and kind's outside system, unless its variables point it elsewhere.
    for (const standIn of OUTSIDE_SYSTEM_STAND_INS) {
      const running = await standIn.start(dir, given);
      if (!running) continue;
      stops.push(() => running.stop());
      Object.assign(env, running.env);
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
