/**
 * Live means confirmed where the app runs (contract §14). On Vercel with `production` the
 * variables are written, the newest READY production deployment is redeployed and the new one is
 * waited to READY, one step a queue message, before the delivery is `live`; preview alone is
 * live once written. On Fly the secrets are set, then each Machine is updated with its current
 * config and waited to `started`, one after the other. A failed redeploy or Machine update keeps
 * the delivery `delivered` with its error and is retried. The Worker runs here
 * (test/helpers/in-process-app.ts); the test hands it each queue message in turn against the
 * platform stand-ins, and reads what the platform's running app took.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProvisioningMessage } from '../../functions/domain/queue-messages';
import { seed } from '../helpers/connections';
import { type InProcessApp, type QueueOutcome, startInProcessApp } from '../helpers/in-process-app';
import { createResource, type PlatformCase, platformCases, resourceState } from '../helpers/platforms';

interface Listed {
  deliveries: Array<{
    id: string;
    reason: string;
    status: string;
    last_error: string | null;
    delivered_at: string | null;
    live_at: string | null;
  }>;
}

let at = new Date('2031-03-01T10:00:00.000Z');
let app: InProcessApp;
/** The next message of `app.sent` not yet handed to the Worker. */
let next = 0;

beforeAll(async () => {
  app = await startInProcessApp({}, undefined, { now: () => at });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** Hands the Worker the next queued message: what it did, and the delay of what it queued. */
async function step(): Promise<{
  message: ProvisioningMessage;
  outcome: QueueOutcome;
  queued: Array<number | undefined>;
}> {
  const message = app.sent[next++];
  if (!message) throw new Error('nothing queued');
  const before = app.sent.length;
  const [outcome] = await app.runQueue([message]);
  return { message, outcome: outcome as QueueOutcome, queued: app.delays.slice(before) };
}

/** A site with LOG_LEVEL set, whose target is `body`, the sync's `deliver` queued and not yet run. */
async function siteWithTarget(p: PlatformCase, body: Record<string, unknown>) {
  const s = await seed(app.baseUrl, 1);
  const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
  expect((await s.as.put(`${site}/env`, { vars: { LOG_LEVEL: 'debug' } })).status).toBe(200);
  next = app.sent.length;
  const set = await s.as.put(`${site}/target`, body);
  expect(set.status, set.text).toBe(200);
  const latest = async () => (await s.as.get<Listed>(`${site}/deliveries`)).body.deliveries[0];
  return { s, site, latest, platform: p };
}

const pathsOf = async (p: PlatformCase) =>
  (await resourceState(p)).log.map((l) => `${l.method} ${l.path.split('?')[0]}`);

describe('a Vercel target with production', () => {
  it('writes, redeploys the newest READY production deployment, waits for READY, then is live', async () => {
    const p = platformCases().find((c) => c.type === 'vercel') as PlatformCase;
    await createResource(p, 'tok-v');
    const [running] = (await resourceState(p)).deployments ?? [];
    expect(running).toMatchObject({ target: 'production', readyState: 'READY', env: {} });
    const { latest } = await siteWithTarget(p, p.target('tok-v'));

    // The deliver writes the variables only: delivered, not live, and the redeploy follows at once.
    at = new Date('2031-03-01T10:00:01.000Z');
    expect(await step()).toMatchObject({
      message: { type: 'deliver' },
      outcome: { acked: true },
      queued: [undefined],
    });
    expect(await latest()).toMatchObject({ status: 'delivered', live_at: null });
    expect((await resourceState(p)).vars).toMatchObject({ LOG_LEVEL: 'debug' });

    // The redeploy: the newest READY production deployment is read, then redeployed.
    expect(await step()).toMatchObject({
      message: { type: 'confirm-live' },
      outcome: { acked: true },
      queued: [2],
    });
    const log = (await resourceState(p)).log;
    const list = log.find((l) => l.path.startsWith('/v6/deployments'));
    expect(new URL(list?.path ?? '', 'http://x').searchParams.toString()).toBe(
      `projectId=${p.key}&target=production&state=READY&limit=1&teamId=${p.fields.team_id}`,
    );
    const [made] = (await resourceState(p)).deployments ?? [];
    expect(made).toMatchObject({ readyState: 'QUEUED', target: 'production', env: { LOG_LEVEL: 'debug' } });
    expect(await latest()).toMatchObject({ status: 'delivered', live_at: null });

    // Waited: building (checked again later, with a longer delay), then READY: live at that moment.
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [4] });
    expect(await latest()).toMatchObject({ status: 'delivered', live_at: null });
    at = new Date('2031-03-01T10:00:07.000Z');
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [] });
    expect(await latest()).toMatchObject({ status: 'live', live_at: '2031-03-01T10:00:07.000Z' });
    expect((await resourceState(p)).deployments?.[0]).toMatchObject({ uid: made?.uid, readyState: 'READY' });
    expect(await pathsOf(p)).toEqual([
      `GET /v9/projects/${p.key}`,
      `POST /v10/projects/${p.key}/env`,
      'GET /v6/deployments',
      'POST /v13/deployments',
      `GET /v13/deployments/${made?.uid}`,
      `GET /v13/deployments/${made?.uid}`,
    ]);
  });

  it('a redeploy that ends in ERROR shows its error, is retried with backoff and redeploys again', async () => {
    const p = platformCases().find((c) => c.type === 'vercel') as PlatformCase;
    await createResource({ ...p, fields: { ...p.fields, failing_deployments: '1' } }, 'tok-v');
    const { latest } = await siteWithTarget(p, p.target('tok-v'));
    await step(); // written
    await step(); // redeployed
    await step(); // building
    const failed = await step(); // ERROR
    expect(failed.outcome).toEqual({ acked: false, delaySeconds: expect.any(Number) });
    const shown = await latest();
    expect(shown).toMatchObject({ status: 'delivered', live_at: null });
    expect(shown?.last_error).toMatch(/^the Vercel redeploy dpl_\w+ ended ERROR$/);

    // The queue retries the same message: a new redeploy, waited to READY.
    next--;
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [2] });
    await step();
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [] });
    expect(await latest()).toMatchObject({ status: 'live', last_error: null });
    const deployments = (await resourceState(p)).deployments ?? [];
    expect(deployments.map((d) => d.readyState)).toEqual(['READY', 'ERROR', 'READY']);
  });

  it('with preview only, the variables written are live: no deployment is read or made', async () => {
    const p = platformCases().find((c) => c.type === 'vercel') as PlatformCase;
    await createResource({ ...p, fields: { ...p.fields, environments: 'preview' } }, 'tok-v');
    const { latest } = await siteWithTarget(p, { ...p.target('tok-v'), environments: ['preview'] });
    at = new Date('2031-03-01T11:00:00.000Z');
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [] });
    expect(await latest()).toMatchObject({ status: 'live', live_at: '2031-03-01T11:00:00.000Z' });
    expect((await pathsOf(p)).filter((l) => l.includes('deployments'))).toEqual([]);
  });
});

describe('a Fly target', () => {
  it('sets the secrets, then updates each Machine with its config and waits for it, one at a time', async () => {
    const p = platformCases().find((c) => c.type === 'fly') as PlatformCase;
    await createResource(
      { ...p, fields: { machines: '2', stopped_machines: '1', slow_starts: '1' } },
      'tok-f',
    );
    const before = (await resourceState(p)).machines ?? [];
    expect(before.map((m) => m.state)).toEqual(['started', 'started', 'stopped']);
    const { latest } = await siteWithTarget(p, p.target('tok-f'));

    expect(await step()).toMatchObject({ message: { type: 'deliver' }, queued: [undefined] });
    expect(await latest()).toMatchObject({ status: 'delivered', live_at: null });
    // Listed, the first updated; its wait answers 408 once (checked again after a delay), then started.
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [undefined] });
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [2] });
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [undefined] });
    // The second: read, updated, waited.
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [undefined] });
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [2] });
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [undefined] });
    expect(await latest()).toMatchObject({ status: 'delivered', live_at: null });
    // The stopped one: updated without a start (it reads the secrets when it next starts); then live.
    at = new Date('2031-03-01T12:00:00.000Z');
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [] });
    expect(await latest()).toMatchObject({ status: 'live', live_at: '2031-03-01T12:00:00.000Z' });

    const [m1, m2, m3] = before.map((m) => m.id);
    expect(await pathsOf(p)).toEqual([
      `GET /v1/apps/${p.key}/secrets`,
      `POST /v1/apps/${p.key}/secrets`,
      `GET /v1/apps/${p.key}/machines`,
      `POST /v1/apps/${p.key}/machines/${m1}`,
      `GET /v1/apps/${p.key}/machines/${m1}/wait`,
      `GET /v1/apps/${p.key}/machines/${m1}/wait`,
      `GET /v1/apps/${p.key}/machines/${m2}`,
      `POST /v1/apps/${p.key}/machines/${m2}`,
      `GET /v1/apps/${p.key}/machines/${m2}/wait`,
      `GET /v1/apps/${p.key}/machines/${m2}/wait`,
      `GET /v1/apps/${p.key}/machines/${m3}`,
      `POST /v1/apps/${p.key}/machines/${m3}`,
    ]);
    const waits = (await resourceState(p)).log.filter((l) => l.path.includes('/wait'));
    for (const w of waits) expect(new URL(w.path, 'http://x').searchParams.get('state')).toBe('started');
    const after = (await resourceState(p)).machines ?? [];
    expect(after.map((m) => [m.state, m.env.LOG_LEVEL])).toEqual([
      ['started', 'debug'],
      ['started', 'debug'],
      ['stopped', undefined],
    ]);
  });

  it('a Machine update that fails shows its error and is retried from the same Machine', async () => {
    const p = platformCases().find((c) => c.type === 'fly') as PlatformCase;
    await createResource({ ...p, fields: { failing_updates: '1' } }, 'tok-f');
    const { latest } = await siteWithTarget(p, p.target('tok-f'));
    await step();
    const failed = await step();
    expect(failed.outcome).toEqual({ acked: false, delaySeconds: expect.any(Number) });
    expect(await latest()).toMatchObject({
      status: 'delivered',
      last_error: 'Fly answered 500: failed to update machine: internal error',
    });
    next--;
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [undefined] });
    expect(await step()).toMatchObject({ outcome: { acked: true }, queued: [] });
    expect(await latest()).toMatchObject({ status: 'live', last_error: null });
    expect((await resourceState(p)).machines?.[0]?.env).toMatchObject({ LOG_LEVEL: 'debug' });
  });
});
