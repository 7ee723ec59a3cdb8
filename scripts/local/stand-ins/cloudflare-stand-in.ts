/**
 * A stand-in for the part of the Cloudflare API v4 a Cloudflare delivery target uses, written
 * from Cloudflare's API reference: a Worker script's settings and secrets
 * (`GET|PATCH …/workers/scripts/{script_name}/settings`, the PATCH multipart with a JSON
 * `settings` part whose `bindings` are the script's whole set, `GET|PUT …/secrets`, `DELETE
 * …/secrets/{secret_name}` under `/client/v4/accounts/{account_id}`), Bearer tokens, the envelope
 * `{success, errors:[{code, message}], messages, result}`, `workers.api.error.script_not_found`
 * (10007) and `binding_not_found` (10056), and the API's rate limit (1200 requests per five
 * minutes per token: 429 with `retry-after`, code 971). See platform-stand-in.ts for the control
 * routes. Never part of the production path.
 */
import {
  INVALID_FORM,
  INVALID_JSON,
  type Platform,
  type PlatformAnswer,
  type PlatformRequest,
  type PlatformStandIn,
  record,
  startPlatformStandIn,
} from './platform-stand-in';

const SCRIPT_PATH =
  /^(?:\/client\/v4)?\/accounts\/([^/]+)\/workers\/scripts\/([^/]+)(\/settings|\/secrets(?:\/([^/]+))?)$/;

const envelope = (
  status: number,
  result: unknown,
  errors: Array<{ code: number; message: string }> = [],
) => ({
  status,
  body: { success: errors.length === 0, errors, messages: [], result },
});

const error = (status: number, code: number, message: string): PlatformAnswer =>
  envelope(status, null, [{ code, message }]);

/** A secret's PUT body as the reference documents it (`secret_text`; `secret_key` is not used here). */
function secretBody(body: unknown): { name: string; text: string } | string {
  if (body === INVALID_JSON || typeof body !== 'object' || body === null)
    return 'the body must be a JSON object';
  const { name, text, type, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unknown fields: ${Object.keys(rest).join(', ')}`;
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    return 'name: a JavaScript variable name';
  if (type !== 'secret_text') return 'type: secret_text';
  if (typeof text !== 'string') return 'text: a string';
  if (new TextEncoder().encode(text).length > 5 * 1024) return 'text: at most 5 KiB';
  return { name, text };
}

/** The fields a script settings PATCH's `settings` part may carry (the reference's ScriptAndVersionSettingEditParams). */
const SETTINGS_FIELDS = new Set([
  'bindings',
  'compatibility_date',
  'compatibility_flags',
  'limits',
  'logpush',
  'observability',
  'placement',
  'tags',
  'tail_consumers',
  'usage_model',
]);

/**
 * The script's secrets after a settings PATCH (multipart, a JSON `settings` part), or what is
 * wrong with it: a binding `{name, type:"secret_text", text}` sets a secret; `{name, type}` alone
 * inherits the binding of that name and type the script has; a secret left out is removed.
 */
function patchedSecrets(req: PlatformRequest, current: Map<string, string>): Map<string, string> | string {
  const form = req.form;
  if (form === undefined || form === INVALID_FORM) return 'the body must be multipart/form-data';
  let settings: unknown;
  try {
    settings = JSON.parse(form.settings ?? '');
  } catch {
    return 'settings: a JSON object';
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    return 'settings: a JSON object';
  const unknown = Object.keys(settings).filter((k) => !SETTINGS_FIELDS.has(k));
  if (unknown.length > 0) return `settings: unknown fields: ${unknown.join(', ')}`;
  const bindings = (settings as { bindings?: unknown }).bindings;
  if (bindings === undefined) return new Map(current);
  if (!Array.isArray(bindings)) return 'bindings: an array';
  const next = new Map<string, string>();
  const seen = new Set<string>();
  for (const binding of bindings as Array<Record<string, unknown>>) {
    const { name, type, ...rest } = binding ?? {};
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      return 'bindings: each name a JavaScript variable name';
    if (seen.has(name)) return `bindings: ${name} named twice`;
    seen.add(name);
    if (type !== 'secret_text') return `bindings: ${name}: this script has only secret_text bindings`;
    const fields = Object.keys(rest);
    if (fields.length === 0) {
      const inherited = current.get(name);
      if (inherited === undefined) return `bindings: ${name}: no such binding to inherit`;
      next.set(name, inherited);
      continue;
    }
    if (fields.length > 1 || typeof rest.text !== 'string') return `bindings: ${name}: {name, type, text}`;
    if (new TextEncoder().encode(rest.text).length > 5 * 1024) return `bindings: ${name}: text at most 5 KiB`;
    next.set(name, rest.text);
  }
  return next;
}

const cloudflare: Platform = {
  name: 'Cloudflare',
  rateLimit: { requests: 1200, windowMs: 5 * 60_000 },
  rateLimited: (retryAfter) => ({
    ...error(429, 971, 'Please wait and consider throttling your request speed'),
    headers: { 'retry-after': String(retryAfter) },
  }),
  unavailable: () => error(500, 10013, 'workers.api.error.unknown'),
  resourceKey: (req) => {
    const match = SCRIPT_PATH.exec(req.url.pathname);
    return match ? decodeURIComponent(match[2] ?? '') : null;
  },
  handle(req: PlatformRequest, resource, token) {
    const match = SCRIPT_PATH.exec(req.url.pathname);
    if (!match) return error(404, 7003, 'Could not route to the requested path');
    if (!token) return error(400, 6003, 'Invalid request headers');
    // A token is tied to its account; a script of another account is not its to see.
    const accountId = decodeURIComponent(match[1] ?? '');
    if (resource && resource.fields.account_id !== accountId)
      return error(403, 10000, 'Authentication error');
    if (resource && resource.token !== token) return error(403, 10000, 'Authentication error');
    if (!resource) return error(404, 10007, 'workers.api.error.script_not_found');
    const [, , , part, secretName] = match;
    if (part === '/settings' && req.method === 'GET') {
      record(resource, req, []);
      const bindings = [...resource.vars.keys()].map((name) => ({ name, type: 'secret_text' }));
      return envelope(200, { bindings, logpush: false, tags: [], compatibility_date: '2026-04-20' });
    }
    if (part === '/settings' && req.method === 'PATCH') {
      const next = patchedSecrets(req, resource.vars);
      if (typeof next === 'string') return error(400, 10021, next);
      const changed = [...next].filter(([name, text]) => resource.vars.get(name) !== text).map(([n]) => n);
      const removed = [...resource.vars.keys()].filter((name) => !next.has(name));
      resource.vars = next;
      record(resource, req, [...changed, ...removed].sort());
      const bindings = [...next.keys()].map((name) => ({ name, type: 'secret_text' }));
      return envelope(200, { bindings, logpush: false, tags: [], compatibility_date: '2026-04-20' });
    }
    if (part === '/secrets' && req.method === 'GET') {
      record(resource, req, []);
      return envelope(
        200,
        [...resource.vars.keys()].map((name) => ({ name, type: 'secret_text' })),
      );
    }
    if (part === '/secrets' && req.method === 'PUT') {
      const parsed = secretBody(req.body);
      if (typeof parsed === 'string') return error(400, 10021, parsed);
      resource.vars.set(parsed.name, parsed.text);
      record(resource, req, [parsed.name]);
      return envelope(200, { name: parsed.name, type: 'secret_text' });
    }
    if (secretName !== undefined && req.method === 'DELETE') {
      const name = decodeURIComponent(secretName);
      record(resource, req, [name]);
      if (!resource.vars.delete(name)) return error(404, 10056, 'workers.api.error.binding_not_found');
      return envelope(200, null);
    }
    return error(405, 10000, `method ${req.method} not allowed here`);
  },
};

/** Starts the Cloudflare stand-in; CLOUDFLARE_API_URL is `${url}/client/v4`. */
export function startCloudflareStandIn(): Promise<PlatformStandIn> {
  return startPlatformStandIn(cloudflare);
}
