/**
 * A PostgreSQL principal made with allowed_sources cannot log in, from anywhere, until the
 * network policy naming its sources was acknowledged (contract §9, `state: "pending"`); then it
 * can (`active`). A principal without sources is active at once. Real Worker, real cluster,
 * real logins; the policy receiver refuses its first delivery, so the pending time is seen.
 */
import { describe, expect, it } from 'vitest';
import { createDatabase, metadata, policyEnv } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile, receiverForFile, seededForFile } from '../helpers/for-file';
import { canLogin, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

const policies = receiverForFile();
const world = connectionsWorldForFile(() => policyEnv(policies));
const s = seededForFile(0, () => world.worker.baseUrl);

type Shown = { id: string; state: string; username: string; password: string; url: string };

describe('a principal with allowed_sources', () => {
  it('is pending and refused until its policy is acknowledged, then active and let in', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const base = `/api/v1/projects/${s.project.id}/databases/${db.id}`;
    const physical = new URL(
      (await s.as.get<{ url: string }>(`${base}/credentials`)).body.url,
    ).pathname.slice(1);
    policies.failNext(1);
    const made = await s.as.post<Shown>(`${base}/principals`, {
      name: 'office',
      level: 'read-only',
      allowed_sources: ['127.0.0.1'],
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.state).toBe('pending');
    const open = await s.as.post<Shown>(`${base}/principals`, { name: 'anywhere', level: 'read-only' });
    expect(open.body.state).toBe('active');
    // The first delivery of its policy was refused: the principal still may not log in.
    await policies.next((r) => r.status === 500 && JSON.stringify(r.body).includes(made.body.username));
    const listed = async () =>
      (await s.as.get<{ principals: Array<{ id: string; state: string }> }>(`${base}/principals`)).body
        .principals;
    expect((await listed()).find((p) => p.id === made.body.id)?.state).toBe('pending');
    expect(await canLogin(physical, made.body.username, made.body.password)).toBe(false);
    expect(await canLogin(physical, open.body.username, open.body.password)).toBe(true);
    // The queue sends it again; once acknowledged the principal is active and logs in.
    await eventually(
      async () => (await listed()).find((p) => p.id === made.body.id)?.state,
      (state) => state === 'active',
      60_000,
      'principal active',
    );
    expect(await canLogin(physical, made.body.username, made.body.password)).toBe(true);
    const access = await s.as.get<{ principals: Array<{ id: string; state: string }> }>(`${base}/access`);
    expect(access.body.principals.find((p) => p.id === made.body.id)?.state).toBe('active');
  });

  it('is let in by the reconciler when its activation was lost after its policy was acknowledged', async () => {
    const db = await createDatabase(s.as, s.project.id);
    const base = `/api/v1/projects/${s.project.id}/databases/${db.id}`;
    const physical = new URL(
      (await s.as.get<{ url: string }>(`${base}/credentials`)).body.url,
    ).pathname.slice(1);
    const made = await s.as.post<Shown>(`${base}/principals`, {
      name: 'lost',
      level: 'read-only',
      allowed_sources: ['127.0.0.1'],
    });
    expect(made.status, made.text).toBe(201);
    const state = async () =>
      (
        await s.as.get<{ principals: Array<{ id: string; state: string }> }>(`${base}/principals`)
      ).body.principals.find((p) => p.id === made.body.id)?.state;
    await eventually(state, (x) => x === 'active', 60_000, 'principal active');
    // The activation lost: the policy stays acknowledged, so no delivery would let it in again.
    await metadata(`update principals set state = 'pending' where id = $1`, [made.body.id]);
    const admin = await superuser();
    await admin.query(`alter role "${made.body.username}" nologin`).finally(() => admin.end());
    expect(await canLogin(physical, made.body.username, made.body.password)).toBe(false);

    await triggerScheduled(world.worker.baseUrl);
    expect(await state()).toBe('active');
    expect(await canLogin(physical, made.body.username, made.body.password)).toBe(true);
  });
});
