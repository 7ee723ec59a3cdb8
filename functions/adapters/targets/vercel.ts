/**
 * Vercel project environment variables, through the Vercel REST API: the names set go in one
 * `POST /v10/projects/{id}/env?upsert=true` with `[{key, value, type:"encrypted", target}]`; a
 * name unset is looked up in `GET /v10/projects/{id}/env` and each variable of that key whose
 * targets meet the target's environments is removed with `DELETE /v9/projects/{id}/env/{envId}`,
 * or, past what a patch's calls allow (PATCH_CALLS), with `DELETE /v1/projects/{id}/env`
 * `{ids}` (batch remove, up to 1000 a call).
 * `teamId` rides on every call when given. The check reads the project (`GET /v9/projects/{id}`).
 * Errors are `{error:{code, message}}`. The token needs access to the project (a project-scoped
 * token, or a team token with that project). With `production` among the target's environments
 * the newest READY production deployment is then redeployed and waited to READY
 * (vercel-redeploy.ts): a running deployment keeps the variables it was built with.
 */
import { z } from 'zod';
import { failure, ok, seg } from './http';
import {
  type DeliveryTarget,
  PATCH_CALLS,
  type PlatformUrls,
  type StoredTarget,
  type TargetPatch,
} from './target-adapter';
import { messageOf, projectUrl, send, type VercelConfig } from './vercel-api';
import { REDEPLOY_FIRST, redeployStep } from './vercel-redeploy';

const ENVIRONMENTS = ['production', 'preview', 'development'] as const;

const VercelInput = z
  .object({
    type: z.literal('vercel'),
    project_id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'the project id or name'),
    team_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'the team id')
      .optional(),
    api_token: z.string().min(1).max(512),
    environments: z
      .array(z.enum(ENVIRONMENTS))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'each environment once'),
  })
  .strict();

/** Upserts the names set and removes the names unset, in the target's environments. */
async function writeVariables(
  urls: PlatformUrls,
  target: StoredTarget<VercelConfig>,
  patch: TargetPatch,
): Promise<void> {
  const { environments } = target.config;
  const entries = Object.entries(patch.set);
  if (entries.length > 0) {
    const body = entries.map(([key, value]) => ({ key, value, type: 'encrypted', target: environments }));
    const answer = await send(
      'POST',
      projectUrl(urls, target.config, 'v10', '/env', 'upsert=true'),
      target,
      body,
    );
    if (!ok(answer)) throw failure('Vercel', answer, messageOf(answer));
  }
  if (patch.unset.length === 0) return;
  const listed = await send('GET', projectUrl(urls, target.config, 'v10', '/env'), target);
  if (!ok(listed)) throw failure('Vercel', listed, messageOf(listed));
  const envs =
    (listed.body as { envs?: Array<{ id: string; key: string; target?: string[] | string }> }).envs ?? [];
  const unset = new Set(patch.unset);
  const ids = envs
    .filter((env) => {
      const targets = Array.isArray(env.target) ? env.target : env.target ? [env.target] : [];
      return unset.has(env.key) && targets.some((t) => environments.includes(t));
    })
    .map((env) => env.id);
  // Each by its id while they fit the patch's calls (two are the upsert and the listing); more in batches.
  if (ids.length <= PATCH_CALLS - 2) {
    for (const id of ids) {
      const answer = await send('DELETE', projectUrl(urls, target.config, 'v9', `/env/${seg(id)}`), target);
      if (!ok(answer) && answer.status !== 404) throw failure('Vercel', answer, messageOf(answer));
    }
    return;
  }
  for (let i = 0; i < ids.length; i += BATCH_REMOVE) {
    const body = { ids: ids.slice(i, i + BATCH_REMOVE) };
    const answer = await send('DELETE', projectUrl(urls, target.config, 'v1', '/env'), target, body);
    if (!ok(answer)) throw failure('Vercel', answer, messageOf(answer));
  }
}

/** Ids one batch remove takes at most (`DELETE /v1/projects/{id}/env`). */
const BATCH_REMOVE = 1000;

/** The Vercel environment variables target. */
export const vercelTarget: DeliveryTarget<z.infer<typeof VercelInput>, VercelConfig> = {
  type: 'vercel',
  input: VercelInput,
  split: ({ project_id, team_id, api_token, environments }) => ({
    config: { project_id, ...(team_id ? { team_id } : {}), environments },
    secret: api_token,
  }),
  describe: ({ project_id, team_id, environments }) => ({
    project_id,
    ...(team_id ? { team_id } : {}),
    environments,
    api_token_set: true,
  }),
  async check(urls, target) {
    const answer = await send('GET', projectUrl(urls, target.config, 'v9'), target);
    if (!ok(answer)) throw failure('Vercel', answer, messageOf(answer));
  },
  async deliver(urls, target, patch) {
    await writeVariables(urls, target, patch);
    // Preview and development take variables at their next deployment: written is all there is.
    if (!target.config.environments.includes('production')) return { live: true };
    return { live: false, next: { state: REDEPLOY_FIRST, delaySeconds: 0 } };
  },
  confirm: (urls, target, state) => redeployStep(urls, target, state),
};
