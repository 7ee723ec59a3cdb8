/**
 * What the Cloudflare, Vercel and Fly stand-ins share: an HTTP server, the resources (a Worker
 * script, a Vercel project, a Fly app) each with the one token it accepts, the variables each
 * holds, a log of what it was sent (names only), a switch that takes one resource "down" for a
 * while, and a per-token rate limit. Each platform's module answers its own paths in its own
 * shapes; the control routes under `/__stand-in/` are the same for all three:
 *
 * - `POST /__stand-in/resources` `{key, token, ...fields}`: a resource (`key` is the script name,
 *   project id or app name) that accepts `token`;
 * - `GET /__stand-in/resources/:key`: `{vars:{NAME:value}, log:[{method, path, names}]}`, and
 *   what the resource's app runs with where the platform has that (Vercel `deployments`, Fly
 *   `machines`, each with the `env` it took when it started);
 * - `POST /__stand-in/resources/:key/down` `{down:boolean, mode?:"unavailable"|"rate-limited"}`.
 *
 * Never part of the production path.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One resource at the platform. */
export interface Resource {
  key: string;
  token: string;
  fields: Record<string, string>;
  /** Its variables; a platform module may keep more per name in `meta`. */
  vars: Map<string, string>;
  meta: Map<string, Record<string, unknown>>;
  log: Array<{ method: string; path: string; names: string[] }>;
  down: false | 'unavailable' | 'rate-limited';
}

/** A request as a platform module sees it. */
export interface PlatformRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** The body parsed as JSON; undefined when there is none, `INVALID_JSON` when it does not parse. */
  body: unknown;
  /** A multipart/form-data body's text parts by name (undefined for any other body; `INVALID_FORM` when it does not parse). */
  form?: Record<string, string> | typeof INVALID_FORM;
}

/** What a platform module answers. */
export interface PlatformAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Marks a body that is not JSON. */
export const INVALID_JSON = Symbol('invalid json');

/** Marks a multipart/form-data body that does not parse. */
export const INVALID_FORM = Symbol('invalid form');

/** A multipart/form-data body's parts as text, parsed as the platform would (WHATWG FormData). */
async function formOf(
  raw: Buffer,
  contentType: string,
): Promise<Record<string, string> | typeof INVALID_FORM> {
  try {
    const data = await new Response(new Uint8Array(raw), {
      headers: { 'content-type': contentType },
    }).formData();
    const parts: Record<string, string> = {};
    for (const [name, value] of data.entries())
      parts[name] = typeof value === 'string' ? value : await (value as Blob).text();
    return parts;
  } catch {
    return INVALID_FORM;
  }
}

/** A platform's part of a stand-in. */
export interface Platform {
  name: string;
  /** Requests per token per window before the platform's 429. */
  rateLimit: { requests: number; windowMs: number };
  /** The platform's 429 answer. */
  rateLimited(retryAfterSeconds: number): PlatformAnswer;
  /** The platform's answer while its API is failing. */
  unavailable(): PlatformAnswer;
  /** The resource a request is for (a missing one is its own 404), or null for no such path. */
  resourceKey(req: PlatformRequest): string | null;
  /** Answers a request for `resource` (undefined: none by that key) whose token was `token`. */
  handle(req: PlatformRequest, resource: Resource | undefined, token: string | null): PlatformAnswer;
  /** Sets up what a new resource runs (deployments, Machines) from the control route's body. */
  created?(resource: Resource, body: Record<string, unknown>): void;
  /** What the control route shows of a resource besides `vars` and `log` (what its app runs with). */
  view?(resource: Resource): Record<string, unknown>;
}

/** A running stand-in. */
export interface PlatformStandIn {
  url: string;
  resources: Map<string, Resource>;
  stop(): Promise<void>;
}

/** The Bearer token of a request, or null. */
export function bearer(headers: IncomingMessage['headers']): string | null {
  const value = headers.authorization ?? '';
  const match = /^(?:Bearer|FlyV1) (.+)$/.exec(value);
  return match?.[1] ?? null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: PlatformAnswer): void {
  const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...answer.headers,
  });
  res.end(body);
}

/** The control routes (see the header). */
function control(platform: Platform, resources: Map<string, Resource>, req: PlatformRequest): PlatformAnswer {
  const path = req.url.pathname.slice('/__stand-in'.length);
  const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
  if (req.method === 'POST' && path === '/resources') {
    const { key, token, ...fields } = body;
    if (typeof key !== 'string' || typeof token !== 'string')
      return { status: 400, body: { error: 'key and token' } };
    const resource: Resource = {
      key,
      token,
      fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])),
      vars: new Map(),
      meta: new Map(),
      log: [],
      down: false,
    };
    resources.set(key, resource);
    platform.created?.(resource, fields);
    return { status: 201, body: { key } };
  }
  const match = /^\/resources\/([^/]+)(\/down)?$/.exec(path);
  const resource = match && resources.get(decodeURIComponent(match[1] ?? ''));
  if (!match || !resource) return { status: 404, body: { error: 'no such resource' } };
  if (match[2] && req.method === 'POST') {
    resource.down =
      body.down === true ? (body.mode === 'rate-limited' ? 'rate-limited' : 'unavailable') : false;
    return { status: 200, body: { down: resource.down } };
  }
  if (req.method === 'GET')
    return {
      status: 200,
      body: { vars: Object.fromEntries(resource.vars), log: resource.log, ...platform.view?.(resource) },
    };
  return { status: 405, body: { error: 'method' } };
}

/** Starts `platform`'s stand-in on a free port of 127.0.0.1. */
export async function startPlatformStandIn(platform: Platform): Promise<PlatformStandIn> {
  const resources = new Map<string, Resource>();
  const windows = new Map<string, { start: number; count: number }>();
  const server = createServer(async (raw, res) => {
    try {
      const bytes = await readBody(raw);
      const contentType = raw.headers['content-type'] ?? '';
      const multipart = /^multipart\/form-data/i.test(contentType);
      const text = multipart ? '' : bytes.toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = INVALID_JSON;
      }
      const req: PlatformRequest = {
        method: raw.method ?? 'GET',
        url: new URL(raw.url ?? '/', 'http://stand-in'),
        headers: raw.headers,
        body,
        form: multipart ? await formOf(bytes, contentType) : undefined,
      };
      if (req.url.pathname.startsWith('/__stand-in/')) return send(res, control(platform, resources, req));
      const key = platform.resourceKey(req);
      const resource = key === null ? undefined : resources.get(key);
      if (resource?.down === 'unavailable') return send(res, platform.unavailable());
      const token = bearer(req.headers);
      // The platform's own per-token window; a resource switched to rate-limited answers as if spent.
      const now = Date.now();
      const window = windows.get(token ?? '') ?? { start: now, count: 0 };
      if (now - window.start >= platform.rateLimit.windowMs) Object.assign(window, { start: now, count: 0 });
      window.count++;
      windows.set(token ?? '', window);
      const retryAfter = Math.ceil((window.start + platform.rateLimit.windowMs - now) / 1000);
      if (resource?.down === 'rate-limited') return send(res, platform.rateLimited(retryAfter));
      if (window.count > platform.rateLimit.requests) return send(res, platform.rateLimited(retryAfter));
      send(res, platform.handle(req, resource, token));
    } catch (err) {
      send(res, { status: 500, body: { error: (err as Error).message } });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    resources,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Logs what a resource was sent: the method, the path and the variable names (never values). */
export function record(resource: Resource, req: PlatformRequest, names: string[]): void {
  resource.log.push({ method: req.method, path: req.url.pathname + req.url.search, names });
}
