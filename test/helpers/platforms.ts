/**
 * The Cloudflare, Vercel and Fly stand-ins of the shared stack (scripts/local/stand-ins), driven
 * over their control routes: a resource with the one token it accepts, what it holds, and the
 * switch that takes it down for a while. Each test makes resources of its own names, so files
 * running side by side never share one.
 */
import { inject } from 'vitest';
import { uniqueSuffix } from './api';

/** A platform of the stand-ins, with how a test names its resource and its target body. */
export interface PlatformCase {
  type: 'cloudflare' | 'vercel' | 'fly';
  /** The stand-in's root URL (control routes live under it). */
  root: string;
  /** The resource's key at the stand-in and the fields it is registered with. */
  key: string;
  fields: Record<string, string>;
  /** The PUT …/target body for `token`. */
  target(token: string): Record<string, unknown>;
}

const rootOf = (name: 'CLOUDFLARE_API_URL' | 'VERCEL_API_URL' | 'FLY_API_URL'): string => {
  const url = inject('workerEnv')[name];
  if (!url) throw new Error(`the test stack has no ${name}`);
  return new URL(url).origin;
};

/** A fresh case of each platform: new resource names every call. */
export function platformCases(): PlatformCase[] {
  const id = uniqueSuffix();
  const account = `acc${id}`;
  return [
    {
      type: 'cloudflare',
      root: rootOf('CLOUDFLARE_API_URL'),
      key: `worker-${id}`,
      fields: { account_id: account },
      target: (token) => ({
        type: 'cloudflare',
        account_id: account,
        script_name: `worker-${id}`,
        api_token: token,
      }),
    },
    {
      type: 'vercel',
      root: rootOf('VERCEL_API_URL'),
      key: `prj_${id}`,
      fields: { team_id: `team_${id}`, environments: 'production' },
      target: (token) => ({
        type: 'vercel',
        project_id: `prj_${id}`,
        team_id: `team_${id}`,
        api_token: token,
        environments: ['production'],
      }),
    },
    {
      type: 'fly',
      root: rootOf('FLY_API_URL'),
      key: `app-${id}`,
      fields: {},
      target: (token) => ({ type: 'fly', app_name: `app-${id}`, api_token: token }),
    },
  ];
}

async function control(root: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${root}/__stand-in${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`stand-in ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Registers the case's resource at its stand-in, accepting `token`. */
export async function createResource(p: PlatformCase, token: string): Promise<void> {
  await control(p.root, 'POST', '/resources', { key: p.key, token, ...p.fields });
}

/** What a resource's app runs with: a Vercel deployment, or a Fly Machine, with the variables it took at its start. */
export interface Running {
  env: Record<string, string>;
}

/** What the resource holds now, what it was sent (names only) and what its app runs with. */
export function resourceState(p: PlatformCase): Promise<{
  vars: Record<string, string>;
  log: Array<{ method: string; path: string; names: string[] }>;
  /** Vercel: the project's deployments, newest first. */
  deployments?: Array<Running & { uid: string; target: string; readyState: string }>;
  /** Fly: the app's Machines. */
  machines?: Array<Running & { id: string; state: string; instance_id: string }>;
}> {
  return control(p.root, 'GET', `/resources/${encodeURIComponent(p.key)}`) as never;
}

/** Takes the resource's platform API down (5xx, or 429 with `rateLimited`) or brings it back. */
export async function setDown(p: PlatformCase, down: boolean, rateLimited = false): Promise<void> {
  await control(p.root, 'POST', `/resources/${encodeURIComponent(p.key)}/down`, {
    down,
    mode: rateLimited ? 'rate-limited' : 'unavailable',
  });
}
