/**
 * The deployments part of the Vercel stand-in (vercel-stand-in.ts), written from Vercel's API
 * reference: `GET /v6/deployments` (filtered by `projectId`, `target`, `state`, `limit`; newest
 * first; `{deployments:[{uid, name, url, created, state, readyState, target, projectId}],
 * pagination}`), `POST /v13/deployments` redeploying one (`{name, deploymentId, target}`; answers
 * the new deployment, `readyState:"QUEUED"`) and `GET /v13/deployments/{id}` (`{id, name, url,
 * readyState, target, …}`). A new deployment takes the project's variables of its target when it
 * is created, as a build does, and moves QUEUED → BUILDING → READY one step each time it is read
 * (ERROR instead of READY while the project's `failing_deployments` count lasts). The running
 * app is the newest READY production deployment; the control route shows each with its `env`.
 */
import { randomBytes } from 'node:crypto';
import {
  INVALID_JSON,
  type PlatformAnswer,
  type PlatformRequest,
  type Resource,
  record,
} from './platform-stand-in';

/** One deployment of a project. */
export interface Deployment {
  uid: string;
  name: string;
  target: 'production' | 'preview';
  readyState: 'QUEUED' | 'BUILDING' | 'READY' | 'ERROR';
  created: number;
  /** The variables it was built with. */
  env: Record<string, string>;
}

const byProject = new WeakMap<Resource, Deployment[]>();
/** Which project a deployment id belongs to (ids are random, so stand-ins in one process never share one). */
const projectOfDeployment = new Map<string, Resource>();

/** The paths this part answers. */
export const DEPLOYMENT_PATH = /^\/(?:v6\/deployments|v13\/deployments(?:\/([^/]+))?)$/;
/** Fields of a create-deployment body the reference lists besides those a redeploy sends. */
const BODY_FIELDS = new Set([
  'name',
  'deploymentId',
  'target',
  'project',
  'meta',
  'gitSource',
  'gitMetadata',
  'files',
  'projectSettings',
  'withLatestCommit',
  'customEnvironmentSlugOrId',
  'monorepoManager',
]);

const error = (status: number, code: string, message: string): PlatformAnswer => ({
  status,
  body: { error: { code, message } },
});

/** The project's deployments, oldest first. */
export const deploymentsOf = (resource: Resource): Deployment[] => byProject.get(resource) ?? [];

/** The variables of `target` the project holds now (what a deployment made now is built with). */
function envFor(resource: Resource, target: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of resource.meta.values())
    if ((m.target as string[]).includes(target)) env[String(m.key)] = String(m.value);
  return env;
}

/** Makes a deployment of `resource` built with its variables of now. */
function deploy(resource: Resource, target: 'production' | 'preview', readyState: Deployment['readyState']) {
  const list = byProject.get(resource) ?? [];
  const deployment: Deployment = {
    uid: `dpl_${randomBytes(12).toString('hex')}`,
    name: resource.fields.name ?? resource.key,
    target,
    readyState,
    created: Date.now() + list.length,
    env: envFor(resource, target),
  };
  list.push(deployment);
  byProject.set(resource, list);
  projectOfDeployment.set(deployment.uid, resource);
  return deployment;
}

/** A new project's READY production deployments (`deployments`, default 1: a project whose app runs). */
export function seedDeployments(resource: Resource, body: Record<string, unknown>): void {
  const count = Number(body.deployments ?? 1);
  for (let i = 0; i < count; i++) deploy(resource, 'production', 'READY');
}

/** The project a deployments request is for: `projectId`, or the deployment it names. */
export function deploymentResourceKey(req: PlatformRequest): Resource | string | null {
  const match = DEPLOYMENT_PATH.exec(req.url.pathname);
  if (!match) return null;
  if (req.url.pathname === '/v6/deployments') return req.url.searchParams.get('projectId');
  const id = match[1]
    ? decodeURIComponent(match[1])
    : (req.body as { deploymentId?: unknown } | null)?.deploymentId;
  return (typeof id === 'string' && projectOfDeployment.get(id)) || null;
}

const listed = (d: Deployment, projectId: string) => ({
  uid: d.uid,
  name: d.name,
  url: `${d.uid.slice(4, 16)}.vercel.app`,
  created: d.created,
  createdAt: d.created,
  state: d.readyState,
  readyState: d.readyState,
  target: d.target,
  projectId,
  type: 'LAMBDAS',
});

const shown = (d: Deployment, projectId: string) => {
  const { uid, ...rest } = listed(d, projectId);
  return { id: uid, ...rest };
};

/** Answers a deployments request for `resource` (its token and team already checked). */
export function handleDeployments(req: PlatformRequest, resource: Resource): PlatformAnswer {
  const match = DEPLOYMENT_PATH.exec(req.url.pathname);
  const list = deploymentsOf(resource);
  if (req.url.pathname === '/v6/deployments' && req.method === 'GET') {
    const q = req.url.searchParams;
    const limit = Number(q.get('limit') ?? '20');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return error(400, 'bad_request', 'Invalid request: `limit` should be an integer from 1 to 100');
    const found = [...list]
      .reverse()
      .filter(
        (d) =>
          (!q.get('target') || d.target === q.get('target')) &&
          (!q.get('state') || d.readyState === q.get('state')),
      )
      .slice(0, limit);
    record(resource, req, []);
    return {
      status: 200,
      body: {
        deployments: found.map((d) => listed(d, resource.key)),
        pagination: { count: found.length, next: null, prev: null },
      },
    };
  }
  if (req.url.pathname === '/v13/deployments' && req.method === 'POST') {
    const body = req.body;
    if (body === INVALID_JSON || typeof body !== 'object' || body === null || Array.isArray(body))
      return error(400, 'bad_request', 'Invalid request: the body must be an object');
    const fields = body as Record<string, unknown>;
    const extra = Object.keys(fields).find((k) => !BODY_FIELDS.has(k));
    if (extra)
      return error(400, 'bad_request', `Invalid request: should NOT have additional property \`${extra}\``);
    if (typeof fields.name !== 'string' || fields.name === '')
      return error(400, 'bad_request', 'Invalid request: missing required property `name`');
    if (fields.target !== undefined && fields.target !== 'production' && fields.target !== 'staging')
      return error(400, 'bad_request', 'Invalid request: `target` should be one of production, staging');
    const from = list.find((d) => d.uid === fields.deploymentId);
    if (!from) return error(404, 'not_found', 'Deployment not found');
    const made = deploy(resource, fields.target === 'production' ? 'production' : 'preview', 'QUEUED');
    record(resource, req, []);
    return { status: 200, body: shown(made, resource.key) };
  }
  if (match?.[1] && req.method === 'GET') {
    const d = list.find((x) => x.uid === decodeURIComponent(match[1] ?? ''));
    if (!d) return error(404, 'not_found', 'Deployment not found');
    // One step of the build each time it is read: queued, building, then ready (or failed).
    if (d.readyState === 'QUEUED') d.readyState = 'BUILDING';
    else if (d.readyState === 'BUILDING') {
      const failing = Number(resource.fields.failing_deployments ?? '0');
      if (failing > 0) resource.fields.failing_deployments = String(failing - 1);
      d.readyState = failing > 0 ? 'ERROR' : 'READY';
    }
    record(resource, req, []);
    return { status: 200, body: shown(d, resource.key) };
  }
  return error(405, 'method_unknown', `This endpoint does not respond to ${req.method}`);
}

/** What the control route shows: each deployment with the variables it runs with, newest first. */
export function deploymentsView(resource: Resource): Record<string, unknown> {
  return {
    deployments: [...deploymentsOf(resource)]
      .reverse()
      .map((d) => ({ uid: d.uid, target: d.target, readyState: d.readyState, env: d.env })),
  };
}
