/**
 * The Machines part of the Fly stand-in (fly-stand-in.ts), written from the Machines API
 * reference: `GET /v1/apps/{app_name}/machines` (Machine objects `{id, name, state, region,
 * instance_id, config, created_at, updated_at}`), `GET …/machines/{id}`, `POST …/machines/{id}`
 * (UpdateMachineRequest `{config, skip_launch?, …}`: a new `instance_id`, the Machine restarted
 * unless `skip_launch`) and `GET …/machines/{id}/wait?instance_id&state&timeout` (200 `{ok:true}`
 * once in that state, 408 otherwise). A Machine takes the app's secrets when it (re)starts,
 * as a Fly Machine does: the control route shows each with the `env` it runs with. Knobs set
 * when the app is made: `machines` (started ones, default 1), `stopped_machines`, `slow_starts`
 * (waits each restarted Machine answers 408 before it is started), `failing_updates` (updates
 * answered 500 first).
 */
import { randomBytes } from 'node:crypto';
import {
  INVALID_JSON,
  type PlatformAnswer,
  type PlatformRequest,
  type Resource,
  record,
} from './platform-stand-in';

/** One Machine of an app. */
interface Machine {
  id: string;
  state: 'started' | 'starting' | 'stopped';
  instanceId: string;
  config: Record<string, unknown>;
  /** The secrets it read when it last started. */
  env: Record<string, string>;
  /** 408 answers left before a restart counts as started. */
  waitsLeft: number;
  updatedAt: string;
}

const byApp = new WeakMap<Resource, Machine[]>();

/** The paths this part answers: the app, the Machine and whether it is a wait. */
export const MACHINES_PATH = /^\/v1\/apps\/([^/]+)\/machines(?:\/([^/]+)(\/wait)?)?$/;
const UPDATE_FIELDS = new Set([
  'config',
  'region',
  'name',
  'skip_launch',
  'skip_service_registration',
  'current_version',
  'lease_ttl',
  'lsvd',
]);
const STATES = new Set(['started', 'stopped', 'suspended', 'destroyed']);

const error = (status: number, message: string): PlatformAnswer => ({ status, body: { error: message } });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const instanceId = () => `01${hex(12).toUpperCase()}`;

function machine(resource: Resource, state: 'started' | 'stopped'): Machine {
  return {
    id: hex(7),
    state,
    instanceId: instanceId(),
    config: {
      image: `registry.fly.io/${resource.key}:deployment-1`,
      guest: { cpu_kind: 'shared', cpus: 1, memory_mb: 256 },
    },
    env: state === 'started' ? Object.fromEntries(resource.vars) : {},
    waitsLeft: 0,
    updatedAt: new Date().toISOString(),
  };
}

/** A new app's Machines (see the header's knobs). */
export function seedMachines(resource: Resource, body: Record<string, unknown>): void {
  const started = Number(body.machines ?? 1);
  const stopped = Number(body.stopped_machines ?? 0);
  byApp.set(resource, [
    ...Array.from({ length: started }, () => machine(resource, 'started')),
    ...Array.from({ length: stopped }, () => machine(resource, 'stopped')),
  ]);
}

const shown = (m: Machine) => ({
  id: m.id,
  name: `machine-${m.id}`,
  state: m.state === 'starting' ? 'replacing' : m.state,
  region: 'ord',
  instance_id: m.instanceId,
  private_ip: 'fdaa:0:1:a7b:1::2',
  config: m.config,
  image_ref: { registry: 'registry.fly.io', repository: 'app', tag: 'deployment-1' },
  created_at: '2026-01-01T00:00:00Z',
  updated_at: m.updatedAt,
});

/** Answers a Machines request for app `resource` (its token already checked). */
export function handleMachines(req: PlatformRequest, resource: Resource): PlatformAnswer {
  const match = MACHINES_PATH.exec(req.url.pathname);
  const list = byApp.get(resource) ?? [];
  const id = match?.[2] && decodeURIComponent(match[2]);
  if (!id) {
    if (req.method !== 'GET') return error(405, 'method not allowed');
    record(resource, req, []);
    return { status: 200, body: list.map(shown) };
  }
  const m = list.find((x) => x.id === id);
  if (!m) return error(404, 'machine not found');
  if (match?.[3]) {
    if (req.method !== 'GET') return error(405, 'method not allowed');
    const q = req.url.searchParams;
    const state = q.get('state') ?? 'started';
    if (!STATES.has(state)) return error(400, `invalid state ${state}`);
    const timeout = Number(q.get('timeout') ?? '60');
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 60)
      return error(400, 'timeout: 1 to 60 seconds');
    const instance = q.get('instance_id');
    if (instance !== null && instance !== m.instanceId)
      return error(400, `machine has no instance ${instance}`);
    record(resource, req, []);
    if (m.state === 'starting') {
      m.waitsLeft--;
      if (m.waitsLeft <= 0) m.state = 'started';
      return error(408, `deadline_exceeded: machine did not reach state ${state} within ${timeout}s`);
    }
    if (m.state !== state)
      return error(408, `deadline_exceeded: machine did not reach state ${state} within ${timeout}s`);
    return { status: 200, body: { ok: true } };
  }
  if (req.method === 'GET') {
    record(resource, req, []);
    return { status: 200, body: shown(m) };
  }
  if (req.method !== 'POST') return error(405, 'method not allowed');
  const body = req.body;
  if (body === INVALID_JSON || typeof body !== 'object' || body === null || Array.isArray(body))
    return error(400, 'invalid request body');
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).find((k) => !UPDATE_FIELDS.has(k));
  if (extra) return error(400, `json: unknown field "${extra}"`);
  if (typeof fields.config !== 'object' || fields.config === null || Array.isArray(fields.config))
    return error(400, 'config: a Machine config object is required');
  if (fields.skip_launch !== undefined && typeof fields.skip_launch !== 'boolean')
    return error(400, 'skip_launch: a boolean');
  const failing = Number(resource.fields.failing_updates ?? '0');
  if (failing > 0) {
    resource.fields.failing_updates = String(failing - 1);
    return error(500, 'failed to update machine: internal error');
  }
  m.config = fields.config as Record<string, unknown>;
  m.instanceId = instanceId();
  m.updatedAt = new Date().toISOString();
  if (!fields.skip_launch) {
    // Restarted: it reads the app's secrets as they are now.
    m.env = Object.fromEntries(resource.vars);
    m.waitsLeft = Number(resource.fields.slow_starts ?? '0');
    m.state = m.waitsLeft > 0 ? 'starting' : 'started';
  }
  record(resource, req, []);
  return { status: 200, body: shown(m) };
}

/** What the control route shows: each Machine with the secrets it runs with. */
export function machinesView(resource: Resource): Record<string, unknown> {
  return {
    machines: (byApp.get(resource) ?? []).map((m) => ({
      id: m.id,
      state: m.state,
      instance_id: m.instanceId,
      env: m.env,
    })),
  };
}
