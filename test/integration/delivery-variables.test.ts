/**
 * A site's own variables are delivered like everything else (contract §14): `PUT …/env` records a
 * live patch of the names that changed (reason `variables`: new or changed ones set, removed ones
 * unset), sent in the site's `seq` order with the values `GET …/env/effective` answers; nothing
 * when nothing changed. A rollback delivers the names it changes from the latest deploy. A
 * patch of many names reaches Cloudflare in one bulk call (counted per message). The
 * Worker runs here (test/helpers/in-process-app.ts) and the test hands it its queue messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATCH_CALLS } from '../../functions/adapters/targets/target-adapter';
import { MESSAGE_SUBREQUESTS } from '../../functions/use-cases/background/step';
import { seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';
import { createResource, type PlatformCase, platformCases, resourceState } from '../helpers/platforms';
import { type Receiver, startReceiver } from '../helpers/receiver';

interface Patch {
  site_id: string;
  set: Record<string, string>;
  unset: string[];
  reason: string;
  seq: number;
}

let app: InProcessApp;
let receiver: Receiver;
let next = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startInProcessApp();
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

/** Runs every message queued since the last run, one batch; how many there were. */
async function runQueued(): Promise<number> {
  const messages = app.sent.slice(next);
  next = app.sent.length;
  if (messages.length > 0)
    expect(await app.runQueue(messages)).toEqual(messages.map(() => ({ acked: true })));
  return messages.length;
}

async function webhookSite() {
  const s = await seed(app.baseUrl, 1);
  const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
  const hook = `/hook-${s.sites[0]?.id}`;
  const set = await s.as.put(`${site}/target`, {
    type: 'webhook',
    url: `${receiver.url}${hook}`,
    secret: 'a-webhook-secret-of-length',
  });
  expect(set.status, set.text).toBe(200);
  await runQueued();
  const patches = () =>
    receiver.requests.filter((r) => r.path === hook && r.status === 200).map((r) => r.body as Patch);
  const effective = async () =>
    (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
  return { s, site, patches, effective };
}

describe('PUT …/env delivers the names that changed', () => {
  it('as a variables patch with the effective values, in seq order; nothing when nothing changed', async () => {
    const { s, site, patches, effective } = await webhookSite();
    expect(patches().map((p) => p.reason)).toEqual(['sync']);

    expect((await s.as.put(`${site}/env`, { vars: { A: '1', B: '2' } })).status).toBe(200);
    expect(await runQueued()).toBe(1);
    const vars = await effective();
    expect(patches()[1]).toMatchObject({ reason: 'variables', set: { A: vars.A, B: vars.B }, unset: [] });

    // Only B changed; then B removed.
    expect((await s.as.put(`${site}/env`, { vars: { A: '1', B: '3' } })).status).toBe(200);
    expect(await runQueued()).toBe(1);
    expect(patches()[2]).toMatchObject({ reason: 'variables', set: { B: '3' }, unset: [] });
    expect((await s.as.put(`${site}/env`, { vars: { A: '1' } })).status).toBe(200);
    expect(await runQueued()).toBe(1);
    expect(patches()[3]).toMatchObject({ reason: 'variables', set: {}, unset: ['B'] });
    const seqs = patches().map((p) => p.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);

    // The same variables again: nothing recorded, nothing sent.
    const listed = async () =>
      (
        await s.as.get<{ deliveries: Array<{ reason: string; names: string[]; status: string }> }>(
          `${site}/deliveries`,
        )
      ).body.deliveries;
    const before = await listed();
    expect(before.slice(0, 3)).toEqual([
      expect.objectContaining({ reason: 'variables', names: ['B'], status: 'live' }),
      expect.objectContaining({ reason: 'variables', names: ['B'], status: 'live' }),
      expect.objectContaining({ reason: 'variables', names: ['A', 'B'], status: 'live' }),
    ]);
    expect((await s.as.put(`${site}/env`, { vars: { A: '1' } })).status).toBe(200);
    expect(await runQueued()).toBe(0);
    expect(await listed()).toEqual(before);
  });

  it('a rollback delivers the names it changes from the latest deploy, and nothing when none differ', async () => {
    const { s, site, patches } = await webhookSite();
    expect((await s.as.put(`${site}/env`, { vars: { A: '1' } })).status).toBe(200);
    const first = await s.as.post<{ id: string; env_names: string[] }>(`${site}/deploys`, {});
    expect(first.status).toBe(201);
    expect((await s.as.put(`${site}/env`, { vars: { A: '1', C: 'x' } })).status).toBe(200);
    await runQueued();
    expect(patches().map((p) => p.reason)).toEqual(['sync', 'variables', 'variables']);

    const rollback = await s.as.post(`${site}/deploys/${first.body.id}/rollback`);
    expect(rollback.status).toBe(201);
    expect(await runQueued()).toBe(1);
    expect(patches()[3]).toMatchObject({ reason: 'variables', set: { C: 'x' }, unset: [] });
    expect((await s.as.post(`${site}/deploys/${first.body.id}/rollback`)).status).toBe(201);
    expect(await runQueued()).toBe(0);
  });

  it('reaches a platform target as its own call: a Cloudflare secret set and one deleted', async () => {
    const p = platformCases().find((c) => c.type === 'cloudflare') as PlatformCase;
    await createResource(p, 'tok-c');
    const s = await seed(app.baseUrl, 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    expect((await s.as.put(`${site}/env`, { vars: { GONE: 'soon' } })).status).toBe(200);
    expect((await s.as.put(`${site}/target`, p.target('tok-c'))).status).toBe(200);
    await runQueued();
    expect((await s.as.put(`${site}/env`, { vars: { LOG_LEVEL: 'info' } })).status).toBe(200);
    await runQueued();
    const state = await resourceState(p);
    expect(state.vars).toMatchObject({ LOG_LEVEL: 'info' });
    expect(state.vars.GONE).toBeUndefined();
    expect(state.log.slice(-2).map((l) => [l.method, l.names])).toEqual([
      ['PUT', ['LOG_LEVEL']],
      ['DELETE', ['GONE']],
    ]);
  });

  it('a site with 500 variables reaches Cloudflare within a message’s share of subrequests: two calls, counted', async () => {
    const p = platformCases().find((c) => c.type === 'cloudflare') as PlatformCase;
    await createResource(p, 'tok-500');
    const s = await seed(app.baseUrl, 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    const vars = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`VAR_${i}`, `value-${i}`]));
    expect((await s.as.put(`${site}/env`, { vars })).status).toBe(200);
    expect((await s.as.put(`${site}/target`, p.target('tok-500'))).status).toBe(200);
    const effective = async () =>
      (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
    /** Runs the messages queued since the last run one at a time; the platform calls each made. */
    const callsPerMessage = async () => {
      const messages = app.sent.slice(next);
      next = app.sent.length;
      const counts: number[] = [];
      for (const m of messages) {
        const before = (await resourceState(p)).log.length;
        expect(await app.runQueue([m])).toEqual([{ acked: true }]);
        counts.push((await resourceState(p)).log.length - before);
      }
      return counts;
    };

    // The variables patch recorded before the target was set is superseded (no call); the sync
    // carries all 500: the script's settings read, then PATCHed once.
    expect(await callsPerMessage()).toEqual([0, 2]);
    const state = await resourceState(p);
    expect(state.vars).toEqual(await effective());
    expect(Object.keys(state.vars)).toHaveLength(500);
    expect(state.log.slice(-2).map((l) => [l.method, l.path.replace(/.*\/scripts\/[^/]+/, '')])).toEqual([
      ['GET', '/settings'],
      ['PATCH', '/settings'],
    ]);

    // 250 removed and 250 changed: one variables patch of 500 names, two calls again.
    const changed = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`VAR_${i}`, `changed-${i}`]));
    expect((await s.as.put(`${site}/env`, { vars: changed })).status).toBe(200);
    const counts = await callsPerMessage();
    expect(counts).toEqual([2]);
    for (const n of counts) expect(n).toBeLessThanOrEqual(PATCH_CALLS);
    expect(PATCH_CALLS).toBeLessThanOrEqual(MESSAGE_SUBREQUESTS / 2);
    expect((await resourceState(p)).vars).toEqual(await effective());
    expect((await resourceState(p)).log.at(-1)?.names).toHaveLength(500);
  });

  it('500 variables removed from a Vercel target: the listing and one batch remove, counted', async () => {
    const p = platformCases().find((c) => c.type === 'vercel') as PlatformCase;
    await createResource(p, 'tok-v500');
    const s = await seed(app.baseUrl, 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    const vars = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`VAR_${i}`, `value-${i}`]));
    expect((await s.as.put(`${site}/env`, { vars })).status).toBe(200);
    expect((await s.as.put(`${site}/target`, p.target('tok-v500'))).status).toBe(200);
    /** Runs the `deliver` messages queued since the last run one at a time; the calls each made. */
    const deliverCalls = async () => {
      const messages = app.sent.slice(next).filter((m) => m.type === 'deliver');
      next = app.sent.length;
      const calls: string[][] = [];
      for (const m of messages) {
        const before = (await resourceState(p)).log.length;
        expect(await app.runQueue([m])).toEqual([{ acked: true }]);
        calls.push(
          (await resourceState(p)).log.slice(before).map((l) => `${l.method} ${l.path.split('?')[0]}`),
        );
      }
      return calls;
    };
    // The superseded variables patch makes none; the sync upserts all 500 in one call.
    expect(await deliverCalls()).toEqual([[], [`POST /v10/projects/${p.key}/env`]]);
    expect(Object.keys((await resourceState(p)).vars)).toHaveLength(500);

    expect((await s.as.put(`${site}/env`, { vars: {} })).status).toBe(200);
    const removed = await deliverCalls();
    expect(removed).toEqual([[`GET /v10/projects/${p.key}/env`, `DELETE /v1/projects/${p.key}/env`]]);
    for (const calls of removed) expect(calls.length).toBeLessThanOrEqual(PATCH_CALLS);
    expect((await resourceState(p)).vars).toEqual({});
  });
});
