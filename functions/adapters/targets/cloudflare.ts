/**
 * Cloudflare Workers secrets, through the Cloudflare API v4: each name set is `PUT
 * /accounts/{account_id}/workers/scripts/{script_name}/secrets` with `{name, text,
 * type:"secret_text"}`, each name unset `DELETE …/secrets/{name}` (absent already counts as done).
 * The check reads the script's settings. Answers use Cloudflare's envelope
 * `{success, errors:[{code, message}], messages, result}`. The token needs Workers Scripts Edit.
 */
import { z } from 'zod';
import { at, call, failure, ok, type PlatformAnswer, seg } from './http';
import type { DeliveryTarget, PlatformUrls, StoredTarget } from './types';

/** Cloudflare's error code for a secret (binding) that does not exist. */
const BINDING_NOT_FOUND = 10056;

const CloudflareInput = z
  .object({
    type: z.literal('cloudflare'),
    account_id: z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'letters and digits (the account id)'),
    script_name: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, "the Worker's name: letters, digits, - and _"),
    api_token: z.string().min(1).max(512),
  })
  .strict();

type CloudflareConfig = { account_id: string; script_name: string };

/** Cloudflare's first error, as `message (code n)`. */
function messageOf(answer: PlatformAnswer): string | undefined {
  const errors = (answer.body as { errors?: Array<{ code?: number; message?: string }> } | undefined)?.errors;
  const first = errors?.[0];
  if (!first?.message) return undefined;
  return first.code === undefined ? first.message : `${first.message} (code ${first.code})`;
}

const scriptUrl = (urls: PlatformUrls, c: CloudflareConfig): string =>
  at(urls.cloudflare, `/accounts/${seg(c.account_id)}/workers/scripts/${seg(c.script_name)}`);

async function send(
  method: string,
  url: string,
  { secret }: StoredTarget<CloudflareConfig>,
  body?: unknown,
): Promise<PlatformAnswer> {
  return call('Cloudflare', url, { method, authorization: `Bearer ${secret}`, body });
}

/** The Cloudflare Workers secrets target. */
export const cloudflareTarget: DeliveryTarget<z.infer<typeof CloudflareInput>, CloudflareConfig> = {
  type: 'cloudflare',
  input: CloudflareInput,
  split: ({ account_id, script_name, api_token }) => ({
    config: { account_id, script_name },
    secret: api_token,
  }),
  describe: ({ account_id, script_name }) => ({ account_id, script_name, api_token_set: true }),
  async check(urls, target) {
    const answer = await send('GET', `${scriptUrl(urls, target.config)}/settings`, target);
    if (!ok(answer)) throw failure('Cloudflare', answer, messageOf(answer));
  },
  async deliver(urls, target, patch) {
    const base = `${scriptUrl(urls, target.config)}/secrets`;
    for (const [name, text] of Object.entries(patch.set)) {
      const answer = await send('PUT', base, target, { name, text, type: 'secret_text' });
      if (!ok(answer)) throw failure('Cloudflare', answer, messageOf(answer));
    }
    for (const name of patch.unset) {
      const answer = await send('DELETE', `${base}/${seg(name)}`, target);
      const codes = (answer.body as { errors?: Array<{ code?: number }> } | undefined)?.errors ?? [];
      const absent = answer.status === 404 && codes.some((e) => e.code === BINDING_NOT_FOUND);
      if (!ok(answer) && !absent) throw failure('Cloudflare', answer, messageOf(answer));
    }
    // A secret change deploys the Worker with it: the secrets API's success is live.
    return { live: true };
  },
};
