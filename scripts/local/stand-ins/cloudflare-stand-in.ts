/**
 * A stand-in for the part of the Cloudflare API v4 a Cloudflare delivery target uses, written
 * from Cloudflare's API reference: a Worker script's settings and secrets
 * (`GET …/workers/scripts/{script_name}/settings`, `GET|PUT …/secrets`, `DELETE
 * …/secrets/{secret_name}` under `/client/v4/accounts/{account_id}`), Bearer tokens, the envelope
 * `{success, errors:[{code, message}], messages, result}`, `workers.api.error.script_not_found`
 * (10007) and `binding_not_found` (10056), and the API's rate limit (1200 requests per five
 * minutes per token: 429 with `retry-after`, code 971). See platform-stand-in.ts for the control
 * routes. Never part of the production path.
 */
import {
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
