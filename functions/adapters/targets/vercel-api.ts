/**
 * What the Vercel target's calls share: its stored fields, the URL of a path (with `teamId` when
 * the target names a team), the call itself and Vercel's error message (`{error:{code, message}}`).
 */
import { at, call, type PlatformAnswer, seg } from './http';
import type { PlatformUrls, StoredTarget } from './target-adapter';

/** A Vercel target's public fields. */
export type VercelConfig = { project_id: string; team_id?: string; environments: string[] };

/** Vercel's own error message of an answer. */
export const messageOf = (answer: PlatformAnswer): string | undefined =>
  (answer.body as { error?: { message?: string } } | undefined)?.error?.message;

/** `path` (from the API's root, with its version) with `query` and the target's `teamId`. */
export function vercelUrl(urls: PlatformUrls, c: VercelConfig, path: string, query = ''): string {
  const params = new URLSearchParams(query);
  if (c.team_id) params.set('teamId', c.team_id);
  const qs = params.toString();
  return at(urls.vercel, `${path}${qs ? `?${qs}` : ''}`);
}

/** `path` on the project, with `teamId` when the target names a team. */
export const projectUrl = (urls: PlatformUrls, c: VercelConfig, version: string, path = '', query = '') =>
  vercelUrl(urls, c, `/${version}/projects/${seg(c.project_id)}${path}`, query);

/** One call to Vercel with the target's token. */
export const send = (method: string, url: string, { secret }: StoredTarget<VercelConfig>, body?: unknown) =>
  call('Vercel', url, { method, authorization: `Bearer ${secret}`, body });
