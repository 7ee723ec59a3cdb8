/**
 * A stand-in for the part of the Fly Machines API a Fly delivery target uses, written from its
 * OpenAPI reference: `GET /v1/apps/{app_name}/secrets` (AppSecrets: `{secrets:[{name, digest,
 * created_at, updated_at}]}`, values never shown) and `POST /v1/apps/{app_name}/secrets`
 * (AppSecretsUpdateRequest `{values:{NAME:value}}`, null unsetting a name; answers
 * AppSecretsUpdateResp `{secrets, version}`), tokens as `Authorization: Bearer …` or `FlyV1 …`,
 * errors `{error}` (401 unauthorized, 404 app not found, 400 bad request) and 429 with
 * `retry-after`. Its Machines, each running with the secrets it read at its last start:
 * fly-machines-stand-in.ts. See platform-stand-in.ts. Never part of the production path.
 */
import { createHash } from 'node:crypto';
import { handleMachines, MACHINES_PATH, machinesView, seedMachines } from './fly-machines-stand-in';
import {
  INVALID_JSON,
  type Platform,
  type PlatformAnswer,
  type PlatformStandIn,
  record,
  startPlatformStandIn,
} from './platform-stand-in';

const SECRETS_PATH = /^\/v1\/apps\/([^/]+)\/secrets$/;
const error = (status: number, message: string): PlatformAnswer => ({ status, body: { error: message } });

const listed = (vars: Map<string, string>) =>
  [...vars.entries()].map(([name, value]) => ({
    name,
    digest: createHash('sha256').update(value).digest('hex').slice(0, 16),
  }));

let version = 0;

const fly: Platform = {
  name: 'Fly',
  rateLimit: { requests: 1000, windowMs: 60_000 },
  rateLimited: (retryAfter) => ({
    ...error(429, 'rate limit exceeded'),
    headers: { 'retry-after': String(retryAfter) },
  }),
  unavailable: () => error(503, 'service unavailable'),
  resourceKey: (req) => {
    const match = SECRETS_PATH.exec(req.url.pathname) ?? MACHINES_PATH.exec(req.url.pathname);
    return match ? decodeURIComponent(match[1] ?? '') : null;
  },
  created: seedMachines,
  view: machinesView,
  handle(req, resource, token) {
    const machines = MACHINES_PATH.test(req.url.pathname);
    if (!SECRETS_PATH.test(req.url.pathname) && !machines) return error(404, 'not found');
    if (!token) return error(401, 'unauthorized');
    if (resource && resource.token !== token) return error(401, 'unauthorized');
    if (!resource) return error(404, 'app not found');
    if (machines) return handleMachines(req, resource);
    if (req.method === 'GET') {
      record(resource, req, []);
      return { status: 200, body: { secrets: listed(resource.vars) } };
    }
    if (req.method === 'POST') {
      const body = req.body;
      if (body === INVALID_JSON || typeof body !== 'object' || body === null)
        return error(400, 'invalid request body');
      const { values, ...rest } = body as Record<string, unknown>;
      if (
        Object.keys(rest).length > 0 ||
        typeof values !== 'object' ||
        values === null ||
        Array.isArray(values)
      )
        return error(400, 'values: an object of secret names');
      const entries = Object.entries(values as Record<string, unknown>);
      for (const [name, value] of entries) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return error(400, `invalid secret name ${name}`);
        if (value !== null && typeof value !== 'string')
          return error(400, `values.${name}: a string or null`);
      }
      for (const [name, value] of entries) {
        if (value === null) resource.vars.delete(name);
        else resource.vars.set(name, value as string);
      }
      record(
        resource,
        req,
        entries.map(([name]) => name),
      );
      version++;
      return { status: 200, body: { secrets: listed(resource.vars), version } };
    }
    return error(405, 'method not allowed');
  },
};

/** Starts the Fly stand-in; FLY_API_URL is its `url`. */
export function startFlyStandIn(): Promise<PlatformStandIn> {
  return startPlatformStandIn(fly);
}
