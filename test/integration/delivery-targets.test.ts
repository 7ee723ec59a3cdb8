/**
 * A site's delivery target on each platform (contract §11), through the real queue against the
 * platform stand-ins: a refused token stores nothing; setting the target syncs the whole
 * effective set; connect, rotate and disconnect each leave the platform holding exactly the
 * site's effective variables, and each delivery ends `live`, the running app (a Vercel
 * deployment, each Fly Machine) holding them; while the platform is down deliveries show
 * `failed`, and they are live once it is back. Deliveries list names, never values.
 */
import { describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { createDatabase, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import {
  createResource,
  type PlatformCase,
  platformCases,
  resourceState,
  setDown,
} from '../helpers/platforms';

interface Delivery {
  id: string;
  seq: number | null;
  reason: string;
  names: string[];
  status: string;
  attempts: number;
  last_error: string | null;
  live_at: string | null;
}

describe.each(platformCases().map((p) => [p.type, p] as const))('a %s target', (_type, p: PlatformCase) => {
  it('holds exactly the effective variables after each change, and catches up after an outage', async () => {
    const s = await seed(inject('baseUrl'), 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    const effective = async () =>
      (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
    const deliveries = async () =>
      (
        await s.as.get<{ target: { type: string; configured: boolean }; deliveries: Delivery[] }>(
          `${site}/deliveries?limit=50`,
        )
      ).body;
    /** Waits until the platform holds exactly the site's effective variables. */
    const converged = async (what: string) => {
      const want = await effective();
      await eventually(
        async () => (await resourceState(p)).vars,
        (vars) => JSON.stringify(Object.entries(vars).sort()) === JSON.stringify(Object.entries(want).sort()),
        20_000,
        what,
      );
      return want;
    };
    const token = `tok-${p.key}`;
    await createResource(p, token);
    expect((await s.as.put(`${site}/env`, { vars: { LOG_LEVEL: 'debug' } })).status).toBe(200);

    // A wrong token is refused by the platform's one read call; nothing is stored.
    const refused = await s.as.put<{ error: { code: string; message: string } }>(
      `${site}/target`,
      p.target('wrong'),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('TARGET_REFUSED');
    expect((await s.as.get(`${site}/target`)).body).toEqual({ type: 'default' });
    expect((await resourceState(p)).vars).toEqual({});

    // Set: answered without the token, then the whole effective set once (reason sync).
    const set = await s.as.put<Record<string, unknown>>(`${site}/target`, p.target(token));
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ type: p.type, api_token_set: true });
    expect(JSON.stringify(set.body)).not.toContain(token);
    expect((await s.as.get(`${site}/target`)).body).toEqual(set.body);
    const recorded = await s.as.get<{ events: Array<{ action: string; details: Record<string, unknown> }> }>(
      `/api/v1/projects/${s.project.id}/activity?action=target.set`,
    );
    expect(recorded.body.events.map((e) => [e.action, e.details.type])).toEqual([['target.set', p.type]]);
    expect(recorded.text).not.toContain(token);
    await converged('the sync');
    expect((await resourceState(p)).vars).toEqual({ LOG_LEVEL: 'debug' });

    // Connect (a one-site project connects a new database at once), rotate, disconnect.
    const db = await createDatabase(s.as, s.project.id);
    const connected = await converged('the connect');
    expect(connected.DATABASE_URL).toMatch(/^postgres/);
    expect((await s.as.post(`${site}/connections/database/${db.id}/rotate`)).status).toBe(204);
    const rotated = await converged('the rotate');
    expect(rotated.DATABASE_URL).not.toBe(connected.DATABASE_URL);
    expect((await s.as.delete(`${site}/connections/database/${db.id}`)).status).toBe(200);
    const after = await converged('the disconnect');
    expect(after.DATABASE_URL).toBeUndefined();
    expect(after.LOG_LEVEL).toBe('debug');

    const listed = await eventually(
      deliveries,
      (d) => d.deliveries.every((x) => x.status === 'live'),
      30_000,
      'every delivery live where the app runs',
    );
    for (const d of listed.deliveries) expect(d.live_at).not.toBeNull();
    // Live is what the running app has: the newest deployment's or each Machine's own variables.
    const state = await resourceState(p);
    const running = [state.deployments?.[0]?.env, ...(state.machines ?? []).map((m) => m.env)].filter(
      Boolean,
    );
    for (const env of running.length > 0 ? running : [state.vars]) expect(env).toEqual(after);
    expect(listed.target).toEqual({ type: p.type, configured: true });
    expect(listed.deliveries.map((d) => d.reason)).toEqual(['disconnect', 'rotate', 'connect', 'sync']);
    const seqs = listed.deliveries.map((d) => d.seq as number);
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
    expect(listed.deliveries.find((d) => d.reason === 'sync')?.names).toEqual(['LOG_LEVEL']);
    expect(JSON.stringify(listed)).not.toContain(rotated.DATABASE_URL);

    // Down for a while: the connect's patch is `failed`; back up, it is delivered.
    await setDown(p, true);
    expect((await s.as.post(`${site}/connections`, { kind: 'database', resource_id: db.id })).status).toBe(
      201,
    );
    const failed = await eventually(
      deliveries,
      (d) => d.deliveries[0]?.reason === 'connect' && d.deliveries[0]?.status === 'failed',
      20_000,
      'a failed delivery',
    );
    expect(failed.deliveries[0]?.last_error).toMatch(/answered 5\d\d/);
    expect(failed.deliveries[0]?.names).toContain('DATABASE_URL');
    await setDown(p, false);
    await converged('the delivery after the outage');
    const back = await eventually(deliveries, (d) => d.deliveries[0]?.status === 'live', 30_000, 'live');
    expect(back.deliveries[0]?.attempts).toBeGreaterThan(1);

    // Removing the target: back to the default.
    expect((await s.as.delete(`${site}/target`)).body).toEqual({ type: 'default' });
    expect((await api(inject('baseUrl'), s.token).get(`${site}/target`)).body).toEqual({ type: 'default' });
  }, 120_000);
});
