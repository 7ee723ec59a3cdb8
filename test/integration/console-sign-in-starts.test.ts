/**
 * Console provider sign-in starts (`GET /console/login/:provider`) keep no server state (issue 38):
 * the started sign-in travels encrypted in the starting browser's cookie, so a flood of starts
 * grows no storage, and a callback is accepted only with the cookie of the browser that started
 * it (a captured callback link, a swapped or forged cookie, a replay after the cookie was cleared
 * are each refused). The whole sign-in in a browser: test/e2e/console/provider-sign-in.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignInStandIn, startSignInStandIn } from '../../scripts/local/stand-ins/sign-in-stand-in';
import { objectOf } from '../helpers/durable-objects';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let standIn: SignInStandIn;
let worker: ExtraWorker;

beforeAll(async () => {
  standIn = await startSignInStandIn({ users: [] });
  worker = await startExtraWorker({
    ...standIn.env,
    CONSOLE_GITHUB_CLIENT_ID: 'console-github',
    CONSOLE_GITHUB_CLIENT_SECRET: 'console-github-secret',
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await standIn?.stop();
});

/** One start as a browser makes it: the state sent to the provider and the cookie set. */
async function start(): Promise<{ state: string; cookie: string }> {
  const res = await fetch(`${worker.baseUrl}/console/login/github?next=/console`, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const state = new URL(res.headers.get('location') ?? '').searchParams.get('state') ?? '';
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  expect(cookie).toMatch(/^tether_signin=./);
  return { state, cookie };
}

async function callback(state: string, cookie?: string): Promise<string> {
  const res = await fetch(`${worker.baseUrl}/console/login/github/callback?state=${state}&code=not-a-code`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  return res.text();
}

const REFUSED = 'started in another browser';

describe('console sign-in starts', () => {
  it('a flood of starts keeps no server state (no storage grows, nothing to evict)', async () => {
    for (let i = 0; i < 60; i++) await start();
    const store = await objectOf(worker.mf, 'ONE_TIME_CODES', 'console-sign-in');
    expect(await store.stored()).toBe(0);
  });

  it("a captured callback is refused without the starting browser's cookie, with another's, forged or replayed", async () => {
    const mine = await start();
    const theirs = await start();
    expect(await callback(mine.state)).toContain(REFUSED);
    expect(await callback(mine.state, theirs.cookie)).toContain(REFUSED);
    const forged = `${mine.cookie.slice(0, -4)}AAAA`;
    expect(await callback(mine.state, forged)).toContain(REFUSED);
    // With its own cookie the state is accepted, and the sign-in goes on to the provider (which
    // refuses the made-up code): past the binding.
    const own = await callback(mine.state, mine.cookie);
    expect(own).not.toContain(REFUSED);
    expect(own).toContain('GitHub sign-in failed');
  });
});
