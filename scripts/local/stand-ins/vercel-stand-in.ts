/**
 * A stand-in for the part of the Vercel REST API a Vercel delivery target uses, written from
 * Vercel's API reference: `GET /v9/projects/{idOrName}`, `GET /v10/projects/{idOrName}/env`,
 * `POST /v10/projects/{idOrName}/env?upsert=true` (one variable or an array of `{key, value,
 * type, target}`), `DELETE /v9/projects/{idOrName}/env/{id}`, `DELETE /v1/projects/{idOrName}/env`
 * (batch remove, `{ids}`), `teamId` as a query parameter,
 * Bearer tokens, errors `{error:{code, message}}` (`forbidden` with `invalidToken`, `not_found`,
 * `bad_request`, `ENV_ALREADY_EXISTS` without upsert) and `rate_limited` (429 with its `limit`
 * and the `X-RateLimit-*` headers). A variable is kept per key and target set, as Vercel keeps
 * them; the values the control route answers are those of the resource's `environments`
 * (default production). Deployments, each built with the variables of its moment, and their
 * redeploy: vercel-deployments.ts. See platform-stand-in.ts. Never part of the production path.
 */
import { randomBytes } from 'node:crypto';
import {
  INVALID_JSON,
  type Platform,
  type PlatformAnswer,
  type PlatformStandIn,
  record,
  startPlatformStandIn,
} from './platform-stand-in';
import {
  DEPLOYMENT_PATH,
  deploymentResourceKey,
  deploymentsView,
  handleDeployments,
  seedDeployments,
} from './vercel-deployments';

const PROJECT_PATH = /^\/(v1|v9|v10)\/projects\/([^/]+)(\/env(?:\/([^/]+))?)?$/;
const TARGETS = new Set(['production', 'preview', 'development']);
const TYPES = new Set(['system', 'secret', 'encrypted', 'plain', 'sensitive']);
/** Optional fields of a variable the reference lists and a target never sends. */
const OPTIONAL = new Set(['gitBranch', 'comment', 'customEnvironmentIds']);

const error = (status: number, code: string, message: string, extra: object = {}): PlatformAnswer => ({
  status,
  body: { error: { code, message, ...extra } },
});

interface EnvInput {
  key: string;
  value: string;
  type: string;
  target: string[];
}

function envInputs(body: unknown): EnvInput[] | string {
  if (body === INVALID_JSON || body === undefined) return 'Invalid request: the body must be JSON';
  const list = Array.isArray(body) ? body : [body];
  const out: EnvInput[] = [];
  for (const [i, item] of list.entries()) {
    if (typeof item !== 'object' || item === null) return `Invalid request: body[${i}] should be object`;
    const { key, value, type, target, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest).filter((k) => !OPTIONAL.has(k));
    if (extra.length > 0) return `Invalid request: should NOT have additional property \`${extra[0]}\``;
    if (typeof key !== 'string' || key === '') return 'Invalid request: missing required property `key`';
    if (typeof value !== 'string') return 'Invalid request: missing required property `value`';
    if (typeof type !== 'string' || !TYPES.has(type))
      return 'Invalid request: `type` should be one of the allowed values';
    const targets = Array.isArray(target) ? target : [target];
    if (targets.length === 0 || !targets.every((t) => typeof t === 'string' && TARGETS.has(t)))
      return 'Invalid request: `target` should be an array of production, preview, development';
    out.push({ key, value, type, target: targets as string[] });
  }
  return out;
}

const overlaps = (a: string[], b: string[]) => a.some((t) => b.includes(t));

const vercel: Platform = {
  name: 'Vercel',
  rateLimit: { requests: 200, windowMs: 60_000 },
  rateLimited: (retryAfter) => {
    const reset = Math.floor(Date.now() / 1000) + retryAfter;
    return {
      ...error(429, 'rate_limited', `Rate limit exceeded. Try again in ${retryAfter} seconds`, {
        limit: { remaining: 0, reset, resetMs: reset * 1000, total: 200 },
      }),
      headers: {
        'x-ratelimit-limit': '200',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
      },
    };
  },
  unavailable: () => error(500, 'internal_server_error', 'An unexpected internal error occurred'),
  resourceKey: (req) => {
    if (DEPLOYMENT_PATH.test(req.url.pathname)) {
      const project = deploymentResourceKey(req);
      return typeof project === 'string' || project === null ? project : project.key;
    }
    const match = PROJECT_PATH.exec(req.url.pathname);
    return match ? decodeURIComponent(match[2] ?? '') : null;
  },
  created: seedDeployments,
  view: deploymentsView,
  handle(req, resource, token) {
    if (DEPLOYMENT_PATH.test(req.url.pathname)) {
      if (!token) return error(403, 'forbidden', 'Missing token', { missingToken: true });
      if (resource && resource.token !== token)
        return error(403, 'forbidden', 'Not authorized', { invalidToken: true });
      if (!resource || (resource.fields.team_id ?? '') !== (req.url.searchParams.get('teamId') ?? ''))
        return error(
          404,
          'not_found',
          req.url.pathname === '/v6/deployments' ? 'Project not found' : 'Deployment not found',
        );
      return handleDeployments(req, resource);
    }
    const match = PROJECT_PATH.exec(req.url.pathname);
    if (!match) return error(404, 'not_found', 'The requested path was not found');
    if (!token) return error(403, 'forbidden', 'Missing token', { missingToken: true });
    if (resource && resource.token !== token)
      return error(403, 'forbidden', 'Not authorized', { invalidToken: true });
    const teamId = req.url.searchParams.get('teamId') ?? '';
    if (!resource || (resource.fields.team_id ?? '') !== teamId)
      return error(404, 'not_found', 'Project not found');
    const [, version, , env, envId] = match;
    if (!env && version === 'v9' && req.method === 'GET') {
      record(resource, req, []);
      return {
        status: 200,
        body: { id: resource.key, name: resource.fields.name ?? resource.key, accountId: 'team' },
      };
    }
    if (env && envId === undefined && version === 'v10' && req.method === 'GET') {
      record(resource, req, []);
      const envs = [...resource.meta.values()].map(({ value: _value, ...listed }) => listed);
      return { status: 200, body: { envs } };
    }
    if (env && envId === undefined && version === 'v10' && req.method === 'POST') {
      const inputs = envInputs(req.body);
      if (typeof inputs === 'string') return error(400, 'bad_request', inputs);
      const upsert = req.url.searchParams.get('upsert') === 'true';
      const created: unknown[] = [];
      for (const input of inputs) {
        const same = [...resource.meta.entries()].find(
          ([, m]) => m.key === input.key && overlaps(m.target as string[], input.target),
        );
        if (same && !upsert)
          return error(400, 'ENV_ALREADY_EXISTS', `A variable with the name \`${input.key}\` already exists`);
        const id = same?.[0] ?? randomBytes(8).toString('hex');
        const entry = {
          id,
          key: input.key,
          value: input.value,
          type: input.type,
          target: input.target,
          updatedAt: Date.now(),
        };
        resource.meta.set(id, entry);
        created.push({ ...entry, value: undefined });
      }
      record(
        resource,
        req,
        inputs.map((i) => i.key),
      );
      syncVars(resource);
      return { status: 201, body: { created: created.length === 1 ? created[0] : created, failed: [] } };
    }
    if (env && envId === undefined && version === 'v1' && req.method === 'DELETE') {
      // Batch remove: `{ids:[…]}`, 1 to 1000 of them.
      const ids = (req.body as { ids?: unknown } | undefined)?.ids;
      const keys = req.body && typeof req.body === 'object' ? Object.keys(req.body) : [];
      if (
        req.body === INVALID_JSON ||
        keys.some((k) => k !== 'ids') ||
        !Array.isArray(ids) ||
        ids.length < 1 ||
        ids.length > 1000 ||
        ids.some((id) => typeof id !== 'string')
      )
        return error(400, 'bad_request', 'ids: an array of 1 to 1000 environment variable ids');
      const deleted = (ids as string[]).filter((id) => resource.meta.has(id));
      const names = deleted.map((id) => String(resource.meta.get(id)?.key));
      for (const id of deleted) resource.meta.delete(id);
      record(resource, req, names);
      syncVars(resource);
      return { status: 200, body: { deleted: deleted.length, ids: deleted } };
    }
    if (envId !== undefined && version === 'v9' && req.method === 'DELETE') {
      const entry = resource.meta.get(decodeURIComponent(envId));
      if (!entry) return error(404, 'not_found', 'Environment Variable not found');
      resource.meta.delete(decodeURIComponent(envId));
      record(resource, req, [String(entry.key)]);
      syncVars(resource);
      return { status: 200, body: { ...entry, value: undefined } };
    }
    return error(405, 'method_unknown', `This endpoint does not respond to ${req.method}`);
  },
};

/** The control route's `vars`: the values of the variables whose targets meet the resource's environments. */
function syncVars(resource: Parameters<Platform['handle']>[1] & object): void {
  const wanted = (resource.fields.environments ?? 'production').split(',');
  resource.vars.clear();
  for (const m of resource.meta.values()) {
    if (overlaps(m.target as string[], wanted)) resource.vars.set(String(m.key), String(m.value));
  }
}

/** Starts the Vercel stand-in; VERCEL_API_URL is its `url`. */
export function startVercelStandIn(): Promise<PlatformStandIn> {
  return startPlatformStandIn(vercel);
}
