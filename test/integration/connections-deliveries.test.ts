/**
 * Live patches (contract §6) through the real queue: signed, derived when sent, retried with
 * backoff, re-sent by the reconciler, and kept pending where no runtime is configured.
 */
import { describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import {
  createAuthApp,
  createDatabase,
  createSite,
  deliveriesOf,
  metadata,
  PATCH_SECRET,
  type Seeded,
  seed,
} from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';
import { REDIRECT_PATH, type ReceivedRequest } from '../helpers/receiver';
import { triggerScheduled } from '../helpers/worker';

interface Patch {
  site_id: string;
  project_id: string;
  set: Record<string, string>;
  unset: string[];
  reason: string;
  seq: number;
}

const world = connectionsWorldForFile();
const s = seededForFile(2, () => world.worker.baseUrl);
const base = (p: Seeded) => `/api/v1/projects/${p.project.id}`;
const conns = (p: Seeded, site: string) => `${base(p)}/sites/${site}/connections`;
const forSite = (site: string, status?: number) => (r: ReceivedRequest) =>
  (r.body as Patch | undefined)?.site_id === site && (status === undefined || r.status === status);
/**
 * Connects a new site to a new database through the shared Worker, which has no
 * RUNTIME_PATCH_URL: its patch stays pending, never tried.
 */
async function pendingPatch(): Promise<{ site: string; id: string }> {
  const site = await createSite(s.as, s.project.id);
  const db = await createDatabase(s.as, s.project.id);
  const res = await api(inject('baseUrl'), s.token).post(conns(s, site.id), {
    kind: 'database',
    resource_id: db.id,
  });
  expect(res.status).toBe(201);
  const [row] = await deliveriesOf(site.id);
  expect(row).toMatchObject({ status: 'pending', attempts: 0 });
  return { site: site.id, id: row?.id as string };
}
/**
 * The site's first delivery once its outcome is recorded: the consumer writes it after the
 * receiver has answered, so a test that saw the answer may still find the row pending.
 */
async function recordedOutcome(site: string) {
  const [row] = await eventually(
    () => deliveriesOf(site),
    ([r]) => r !== undefined && r.status !== 'pending',
    10_000,
    'the delivery outcome recorded',
  );
  return row;
}
async function effective(site: string): Promise<Record<string, string>> {
  return (await s.as.get<{ vars: Record<string, string> }>(`${base(s)}/sites/${site}/env/effective`)).body
    .vars;
}

describe('live patches', () => {
  // contract §9: the signature covers a timestamp, and seq orders a site's patches.
  it('each patch is signed over "<t>.<body>" with t the send time, and seq rises strictly per site', async () => {
    const site = await createSite(s.as, s.project.id);
    const [db1, db2] = [await createDatabase(s.as, s.project.id), await createDatabase(s.as, s.project.id)];
    expect((await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db1.id })).status).toBe(201);
    const first = await world.receiver.next(forSite(site.id, 200), 15_000);
    expect((await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db2.id })).status).toBe(201);
    const second = await world.receiver.next(forSite(site.id, 200), 15_000);
    for (const r of [first, second]) {
      const header = r.headers['x-signature'] as string;
      expect(header).toMatch(/^t=\d+,sha256=[0-9a-f]{64}$/);
      expect(Math.abs(Number(/^t=(\d+)/.exec(header)?.[1]) - Date.now() / 1000)).toBeLessThan(300);
      expect(world.receiver.verifySignature(r, PATCH_SECRET)).toBe(true);
      // A replay more than five minutes later is refused by a receiver that checks t.
      expect(world.receiver.verifySignature(r, PATCH_SECRET, Date.now() + 301_000)).toBe(false);
      // The old form (HMAC of the body alone) is not what is sent.
      const t = /^t=(\d+)/.exec(header)?.[1];
      expect(world.receiver.verifySignature({ ...r, rawBody: `${t}.${r.rawBody}` }, PATCH_SECRET)).toBe(
        false,
      );
    }
    const [a, b] = [first.body as Patch, second.body as Patch];
    expect(Number.isInteger(a.seq)).toBe(true);
    expect(b.seq).toBeGreaterThan(a.seq);
  });

  // contract §9: a running app's DATABASE_URL never starts pointing at another database.
  it('disconnecting the holder unsets DATABASE_URL and no other database takes it; promote gives it, in one patch', async () => {
    const site = await createSite(s.as, s.project.id);
    const [db1, db2] = [await createDatabase(s.as, s.project.id), await createDatabase(s.as, s.project.id)];
    for (const db of [db1, db2]) {
      expect((await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db.id })).status).toBe(201);
      await world.receiver.next(forSite(site.id, 200), 15_000);
    }
    expect((await s.as.delete(`${conns(s, site.id)}/database/${db1.id}`)).status).toBe(200);
    const gone = (await world.receiver.next(forSite(site.id, 200), 15_000)).body as Patch;
    expect(gone.reason).toBe('disconnect');
    expect(gone.unset).toContain('DATABASE_URL');
    expect(Object.keys(gone.set)).not.toContain('DATABASE_URL');
    const listed = await s.as.get<{ connections: Array<{ env_names: string[] }> }>(conns(s, site.id));
    expect(listed.body.connections.map((c) => c.env_names)).toEqual([
      [`DATABASE_URL_${db2.name.toUpperCase()}`],
    ]);
    expect((await effective(site.id)).DATABASE_URL).toBeUndefined();
    // A database connected now, while none holds them, takes the plain names.
    const db3 = await createDatabase(s.as, s.project.id);
    const third = await s.as.post<{ env_names: string[] }>(conns(s, site.id), {
      kind: 'database',
      resource_id: db3.id,
    });
    expect(third.body.env_names).toEqual(['DATABASE_URL', `DATABASE_URL_${db3.name.toUpperCase()}`]);
    await world.receiver.next(forSite(site.id, 200), 15_000);
    const before = world.receiver.requests.filter(forSite(site.id)).length;

    const promoted = await s.as.post<{ resource_id: string; env_names: string[] }>(
      `${conns(s, site.id)}/database/${db2.id}/promote`,
    );
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({
      resource_id: db2.id,
      env_names: ['DATABASE_URL', `DATABASE_URL_${db2.name.toUpperCase()}`],
    });
    const patch = (await world.receiver.next(forSite(site.id, 200), 15_000)).body as Patch;
    const vars = await effective(site.id);
    expect(patch.reason).toBe('promote');
    expect(patch.set.DATABASE_URL).toBe(vars[`DATABASE_URL_${db2.name.toUpperCase()}`]);
    expect(vars.DATABASE_URL).toBe(vars[`DATABASE_URL_${db2.name.toUpperCase()}`]);
    const after = await s.as.get<{ connections: Array<{ resource_id: string; env_names: string[] }> }>(
      conns(s, site.id),
    );
    expect(after.body.connections.find((c) => c.resource_id === db3.id)?.env_names).toEqual([
      `DATABASE_URL_${db3.name.toUpperCase()}`,
    ]);
    // Promoting the holder again changes nothing and sends nothing.
    expect((await s.as.post(`${conns(s, site.id)}/database/${db2.id}/promote`)).status).toBe(200);
    const rows = await deliveriesOf(site.id);
    expect(rows.filter((r) => r.reason === 'promote')).toHaveLength(1);
    expect(world.receiver.requests.filter(forSite(site.id)).length).toBe(before + 1);
    // An unconnected service is 404.
    const db4 = await createDatabase(s.as, s.project.id);
    expect((await s.as.post(`${conns(s, site.id)}/database/${db4.id}/promote`)).status).toBe(404);
  });

  it('the runtime fails twice and the patch still arrives once, signed, with the derived values', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    world.receiver.failNext(2);
    expect((await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db.id })).status).toBe(201);
    const first = await world.receiver.next(forSite(site.id), 15_000);
    const second = await world.receiver.next(forSite(site.id), 15_000);
    const third = await world.receiver.next(forSite(site.id), 20_000);
    expect([first.status, second.status, third.status]).toEqual([500, 500, 200]);
    for (const r of [first, second, third])
      expect(world.receiver.verifySignature(r, PATCH_SECRET)).toBe(true);
    const patch = third.body as Patch;
    const vars = await effective(site.id);
    const n = `DATABASE_URL_${db.name.toUpperCase()}`;
    expect(patch).toEqual({
      site_id: site.id,
      project_id: s.project.id,
      set: { DATABASE_URL: vars.DATABASE_URL, [n]: vars[n], PLATFORM_API_KEY: vars.PLATFORM_API_KEY },
      unset: [],
      reason: 'connect',
      seq: expect.any(Number),
    });
    const row = await recordedOutcome(site.id);
    expect(row).toMatchObject({ status: 'live', attempts: 3 });
    // A later change's patch arrives after it; the first one never came again.
    await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db.id, level: 'read-only' });
    expect(((await world.receiver.next(forSite(site.id, 200))).body as Patch).reason).toBe('level');
    expect(
      world.receiver.requests.filter(
        (r) => forSite(site.id, 200)(r) && (r.body as Patch).reason === 'connect',
      ),
    ).toHaveLength(1);
  });

  it('a redirect is not an acknowledgement: the patch is sent again, and the redirect never followed', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    world.receiver.redirectNext(1, (r) => (r.body as Patch | undefined)?.site_id === site.id);
    expect((await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db.id })).status).toBe(201);
    const first = await world.receiver.next(forSite(site.id), 15_000);
    const second = await world.receiver.next(forSite(site.id), 20_000);
    expect([first.status, second.status]).toEqual([302, 200]);
    expect(world.receiver.requests.filter((r) => r.path === REDIRECT_PATH)).toEqual([]);
    const row = await recordedOutcome(site.id);
    expect(row).toMatchObject({ status: 'live', attempts: 2 });
  });

  it("a new auth app's initial connection reaches the project's only site at once, not with the reconciler", async () => {
    const one = await seed(world.worker.baseUrl, 1);
    const site = one.sites[0]?.id as string;
    const app = await createAuthApp(one.as, one.project.id);
    const patch = (await world.receiver.next(forSite(site, 200), 10_000)).body as Patch;
    expect(patch.reason).toBe('connect');
    expect(patch.set.SERVICE_AUTH_APP_ID).toBe(app.name);
  });

  // contract §9 replaced the "next earliest takes over" rule: nothing moves by itself.
  it('disconnecting the first database unsets DATABASE_URL, as a live patch; the second keeps only its own name', async () => {
    const site = await createSite(s.as, s.project.id);
    const one = await createDatabase(s.as, s.project.id);
    const two = await createDatabase(s.as, s.project.id);
    await s.as.post(conns(s, site.id), { kind: 'database', resource_id: one.id });
    await s.as.post(conns(s, site.id), { kind: 'database', resource_id: two.id });
    await world.receiver.next(forSite(site.id, 200));
    await world.receiver.next(forSite(site.id, 200));
    expect((await s.as.delete(`${conns(s, site.id)}/database/${one.id}`)).body).toEqual({ removed: true });
    const patch = (await world.receiver.next(forSite(site.id, 200))).body as Patch;
    expect(patch.reason).toBe('disconnect');
    expect(patch.set).toEqual({});
    expect(patch.unset).toEqual(['DATABASE_URL', `DATABASE_URL_${one.name.toUpperCase()}`]);
    const listed = await s.as.get<{ connections: Array<{ env_names: string[] }> }>(conns(s, site.id));
    expect(listed.body.connections[0]?.env_names).toEqual([`DATABASE_URL_${two.name.toUpperCase()}`]);
  });

  it('a user value under an injected name is kept, and handed to the app once the injected one goes', async () => {
    const site = await createSite(s.as, s.project.id);
    const db = await createDatabase(s.as, s.project.id);
    await s.as.put(`${base(s)}/sites/${site.id}/env`, {
      vars: { DATABASE_URL: 'postgres://mine', OTHER: 'x' },
    });
    // The user's own variables reach the app first, as their own patch (docs/contract.md §14).
    const own = (await world.receiver.next(forSite(site.id, 200))).body as Patch & { reason: string };
    expect(own.reason).toBe('variables');
    expect(own.set).toEqual({ DATABASE_URL: 'postgres://mine', OTHER: 'x' });
    await s.as.post(conns(s, site.id), { kind: 'database', resource_id: db.id });
    await world.receiver.next(forSite(site.id, 200));
    const vars = await effective(site.id);
    expect(vars.DATABASE_URL).not.toBe('postgres://mine');
    expect(vars.OTHER).toBe('x');
    const listed = await s.as.get<{ vars: Record<string, string> }>(`${base(s)}/sites/${site.id}/env`);
    expect(listed.body.vars).toEqual({ DATABASE_URL: 'postgres://mine', OTHER: 'x' });
    await s.as.delete(`${conns(s, site.id)}/database/${db.id}`);
    const patch = (await world.receiver.next(forSite(site.id, 200))).body as Patch;
    expect(patch.set).toEqual({ DATABASE_URL: 'postgres://mine' });
    expect(patch.unset.sort()).toEqual([`DATABASE_URL_${db.name.toUpperCase()}`, 'PLATFORM_API_KEY'].sort());
  });

  it('the minute reconciler re-sends a patch that is still undelivered', async () => {
    const pending = await pendingPatch();
    // As if its message had been lost long ago: older than other files' stalled patches, which
    // the reconciler re-sends too (the metadata database is shared), so it is sent first.
    await metadata(`update deliveries set created_at = now() - interval '1 day' where id = $1`, [pending.id]);
    await triggerScheduled(world.worker.baseUrl);
    const patch = (await world.receiver.next(forSite(pending.site, 200))).body as Patch;
    expect(patch.reason).toBe('connect');
    expect(Object.keys(patch.set)).toContain('DATABASE_URL');
  });

  it('the reconciler leaves a patch whose retries are still backing off to its own retry chain', async () => {
    const backingOff = await pendingPatch();
    const lost = await pendingPatch();
    // Tried 8 times, last 75 s ago: the queue waits a minute before its next retry, so it is not idle yet.
    await metadata(
      `update deliveries set attempts = 8, last_attempt_at = now() - interval '75 seconds',
         created_at = now() - interval '2 days' where id = $1`,
      [backingOff.id],
    );
    // Never tried, made a day ago: its message was lost.
    await metadata(`update deliveries set created_at = now() - interval '1 day' where id = $1`, [lost.id]);
    await triggerScheduled(world.worker.baseUrl);
    // Both would be enqueued together, the older first, and the consumer takes a batch in order:
    // once the lost one has arrived, the backing-off one would have been tried already.
    await world.receiver.next(forSite(lost.site, 200));
    expect(world.receiver.requests.some(forSite(backingOff.site))).toBe(false);
    const [untouched] = await deliveriesOf(backingOff.site);
    expect(untouched).toMatchObject({ status: 'pending', attempts: 8 });

    // Past its backoff (the chain was dead-lettered or lost), it is sent again.
    await metadata(`update deliveries set last_attempt_at = now() - interval '10 minutes' where id = $1`, [
      backingOff.id,
    ]);
    await triggerScheduled(world.worker.baseUrl);
    const patch = (await world.receiver.next(forSite(backingOff.site, 200))).body as Patch;
    expect(Object.keys(patch.set)).toContain('DATABASE_URL');
  });
});
