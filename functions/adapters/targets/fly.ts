/**
 * Fly app secrets, through the Machines API: one `POST /v1/apps/{app_name}/secrets` with
 * `{values:{NAME:value, GONE:null}}` sets and unsets a whole patch at once (null unsets). The
 * check lists the app's secrets (`GET /v1/apps/{app_name}/secrets`). Errors are `{error}`. An
 * app-scoped deploy token (`fly tokens create deploy`) is enough; a token given as `FlyV1 …` is
 * sent as it is, any other as `Bearer`. Then each of the app's Machines is updated with its
 * current config and waited for, one at a time (fly-machines.ts): a Machine reads secrets at start.
 */
import { z } from 'zod';
import { type FlyConfig, MACHINES_FIRST, machinesStep } from './fly-machines';
import { at, call, failure, ok, type PlatformAnswer, seg } from './http';
import type { DeliveryTarget, PlatformUrls, StoredTarget } from './target-adapter';

const FlyInput = z
  .object({
    type: z.literal('fly'),
    app_name: z.string().regex(/^[a-z0-9-]{1,63}$/, "the app's name: lower-case letters, digits and -"),
    api_token: z.string().min(1).max(4096),
  })
  .strict();

const messageOf = (answer: PlatformAnswer): string | undefined => {
  const error = (answer.body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
};

const secretsUrl = (urls: PlatformUrls, c: FlyConfig): string =>
  at(urls.fly, `/v1/apps/${seg(c.app_name)}/secrets`);

const send = (method: string, url: string, { secret }: StoredTarget<FlyConfig>, body?: unknown) =>
  call('Fly', url, {
    method,
    authorization: secret.startsWith('FlyV1 ') ? secret : `Bearer ${secret}`,
    body,
  });

/** The Fly app secrets target. */
export const flyTarget: DeliveryTarget<z.infer<typeof FlyInput>, FlyConfig> = {
  type: 'fly',
  input: FlyInput,
  split: ({ app_name, api_token }) => ({ config: { app_name }, secret: api_token }),
  describe: ({ app_name }) => ({ app_name, api_token_set: true }),
  async check(urls, target) {
    const answer = await send('GET', secretsUrl(urls, target.config), target);
    if (!ok(answer)) throw failure('Fly', answer, messageOf(answer));
  },
  async deliver(urls, target, patch) {
    const values: Record<string, string | null> = { ...patch.set };
    for (const name of patch.unset) values[name] = null;
    const answer = await send('POST', secretsUrl(urls, target.config), target, { values });
    if (!ok(answer)) throw failure('Fly', answer, messageOf(answer));
    // Running Machines keep the secrets they started with: each is restarted (fly-machines.ts).
    return { live: false, next: { state: MACHINES_FIRST, delaySeconds: 0 } };
  },
  confirm: (urls, target, state) =>
    machinesStep(urls, target, (method, url, body) => send(method, url, target, body), state),
};
