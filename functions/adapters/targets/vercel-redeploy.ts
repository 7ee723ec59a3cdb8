/**
 * A Vercel production deployment keeps the variables it was built with, so a change is live there
 * only once a new deployment is READY (docs/contract.md §14). Each step is a call or two and no
 * waiting: the consumer takes the next one from a delayed queue message.
 *
 * 1. `redeploy`: the newest READY production deployment (`GET /v6/deployments?projectId=…
 *    &target=production&state=READY&limit=1`) is redeployed (`POST /v13/deployments` with
 *    `{name, deploymentId, target:"production"}`); with none there is no running production app
 *    to update, and the change is live (its first deployment builds with it).
 * 2. `wait`: `GET /v13/deployments/{id}` until its `readyState` is READY (live); ERROR or CANCELED
 *    starts again from 1 after the delivery's backoff.
 */
import { failure, ok, seg } from './http';
import { type DeliverOutcome, FollowUpFailed, type PlatformUrls, type StoredTarget } from './target-adapter';
import { messageOf, send, type VercelConfig, vercelUrl } from './vercel-api';

/** Where a redeploy stands. */
type RedeployState = { phase: 'redeploy' } | { phase: 'wait'; deploymentId: string; polls: number };

/** The first step after the variables are written. */
export const REDEPLOY_FIRST: RedeployState = { phase: 'redeploy' };

/** Checks of a new deployment before it counts as stuck (about 20 minutes with the delays below). */
const MAX_POLLS = 45;

/** Seconds before the n-th check of a new deployment: 2, 4, 8, 16, then every 30. */
const pollDelay = (polls: number): number => Math.min(30, 2 ** (polls + 1));

/** A readyState after which a deployment never becomes READY. */
const ENDED = new Set(['ERROR', 'CANCELED', 'DELETED']);

function parse(state: unknown): RedeployState {
  const s = state as Partial<{ phase: string; deploymentId: unknown; polls: unknown }> | null;
  if (s?.phase === 'wait' && typeof s.deploymentId === 'string')
    return { phase: 'wait', deploymentId: s.deploymentId, polls: typeof s.polls === 'number' ? s.polls : 0 };
  return REDEPLOY_FIRST;
}

/** One step of a redeploy toward READY. */
export async function redeployStep(
  urls: PlatformUrls,
  target: StoredTarget<VercelConfig>,
  state: unknown,
): Promise<DeliverOutcome> {
  const step = parse(state);
  const c = target.config;
  if (step.phase === 'redeploy') {
    const query = new URLSearchParams({
      projectId: c.project_id,
      target: 'production',
      state: 'READY',
      limit: '1',
    });
    const listed = await send('GET', vercelUrl(urls, c, '/v6/deployments', query.toString()), target);
    if (!ok(listed)) throw failure('Vercel', listed, messageOf(listed));
    const newest = (listed.body as { deployments?: Array<{ uid?: string; name?: string }> }).deployments?.[0];
    if (!newest?.uid || !newest.name) return { live: true };
    const made = await send('POST', vercelUrl(urls, c, '/v13/deployments'), target, {
      name: newest.name,
      deploymentId: newest.uid,
      target: 'production',
    });
    if (!ok(made)) throw failure('Vercel', made, messageOf(made));
    const id = (made.body as { id?: unknown }).id;
    if (typeof id !== 'string') throw new Error('Vercel answered the redeploy without a deployment id');
    return {
      live: false,
      next: { state: { phase: 'wait', deploymentId: id, polls: 0 }, delaySeconds: pollDelay(0) },
    };
  }
  const read = await send('GET', vercelUrl(urls, c, `/v13/deployments/${seg(step.deploymentId)}`), target);
  if (!ok(read)) throw failure('Vercel', read, messageOf(read));
  const readyState = String((read.body as { readyState?: unknown }).readyState ?? '');
  if (readyState === 'READY') return { live: true };
  if (ENDED.has(readyState))
    throw new FollowUpFailed(`the Vercel redeploy ${step.deploymentId} ended ${readyState}`, REDEPLOY_FIRST);
  if (step.polls + 1 >= MAX_POLLS)
    throw new FollowUpFailed(
      `the Vercel redeploy ${step.deploymentId} was not READY after ${MAX_POLLS} checks (${readyState || 'no state'})`,
      REDEPLOY_FIRST,
    );
  const polls = step.polls + 1;
  return { live: false, next: { state: { ...step, polls }, delaySeconds: pollDelay(polls) } };
}
