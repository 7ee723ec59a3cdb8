/**
 * Cloudflare Workers secrets, through the Cloudflare API v4: each name set is `PUT
 * /accounts/{account_id}/workers/scripts/{script_name}/secrets` with `{name, text,
 * type:"secret_text"}`, each name unset `DELETE …/secrets/{name}` (absent already counts as done);
 * a patch of more names than {@link PATCH_CALLS} goes in one bulk PATCH of the script's settings
 * instead (two calls). The check reads the script's settings. Answers use Cloudflare's envelope
 * `{success, errors:[{code, message}], messages, result}`. The token needs Workers Scripts Edit.
 */
import { z } from 'zod';
import { at, call, failure, ok, type PlatformAnswer, seg } from './http';
import {
  type DeliveryTarget,
  PATCH_CALLS,
  type PlatformUrls,
  type StoredTarget,
  type TargetPatch,
} from './target-adapter';

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

/** A binding of the script's settings as Cloudflare lists it (`secret_text`, `kv_namespace`, ...). */
type Binding = { name: string; type: string };

/** Sets and unsets each name with its own call (contract §11): a patch of at most {@link PATCH_CALLS} names. */
async function sendEach(urls: PlatformUrls, target: StoredTarget<CloudflareConfig>, patch: TargetPatch) {
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
}

/**
 * The whole patch in two calls, however many names (docs/contract.md §14): the script's
 * settings are read, then PATCHed (multipart, a `settings` part) with every binding it keeps
 * inherited by `{name, type}` alone, each name set as `{name, type:"secret_text", text}`, and each
 * secret unset left out, which removes it; as `wrangler secret bulk` does. One new version of the
 * Worker, deployed.
 */
async function sendBulk(urls: PlatformUrls, target: StoredTarget<CloudflareConfig>, patch: TargetPatch) {
  const url = `${scriptUrl(urls, target.config)}/settings`;
  const read = await send('GET', url, target);
  if (!ok(read)) throw failure('Cloudflare', read, messageOf(read));
  const current = (read.body as { result?: { bindings?: Binding[] } } | undefined)?.result?.bindings ?? [];
  const gone = new Set(patch.unset);
  const kept = current
    .filter((b) => !(b.type === 'secret_text' && (gone.has(b.name) || b.name in patch.set)))
    .map((b) => ({ name: b.name, type: b.type }));
  const set = Object.entries(patch.set).map(([name, text]) => ({ name, type: 'secret_text', text }));
  const form = new FormData();
  form.set(
    'settings',
    new Blob([JSON.stringify({ bindings: [...kept, ...set] })], { type: 'application/json' }),
  );
  const answer = await call('Cloudflare', url, {
    method: 'PATCH',
    authorization: `Bearer ${target.secret}`,
    form,
  });
  if (!ok(answer)) throw failure('Cloudflare', answer, messageOf(answer));
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
    const names = Object.keys(patch.set).length + patch.unset.length;
    await (names <= PATCH_CALLS ? sendEach : sendBulk)(urls, target, patch);
    // A secret change deploys the Worker with it: the secrets API's success is live.
    return { live: true };
  },
};
