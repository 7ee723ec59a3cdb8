/**
 * The clock in a request's context is the one its routes read: a Worker built with a clock of
 * the test's (worker.ts buildWorker, through the in-process app) dates what it issues by that
 * clock, not the machine's. A personal token, a dashboard session and an invitation are stamped
 * and given their lifetimes from it, and a session opened on a clock twelve hours behind is
 * already over when it is used.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount, createProject } from '../helpers/api';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What the app's clock says; each test sets it. */
let at = new Date('2031-05-04T03:02:01.000Z');
let app: InProcessApp;

beforeAll(async () => {
  app = await startInProcessApp({}, undefined, { now: () => at });
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

describe("a route's times come from the context's clock", () => {
  it('a personal token is created at the clock and expires 90 days (or the days asked) after it', async () => {
    at = new Date('2031-05-04T03:02:01.000Z');
    const owner = await createAccount(undefined, app.baseUrl);
    const made = await api(app.baseUrl, owner.token).post<{ created_at: string; expires_at: string }>(
      '/api/v1/account/tokens',
      { name: 'dated' },
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body.created_at).toBe('2031-05-04T03:02:01.000Z');
    expect(made.body.expires_at).toBe(new Date(at.getTime() + 90 * DAY_MS).toISOString());

    const week = await api(app.baseUrl, owner.token).post<{ expires_at: string }>('/api/v1/account/tokens', {
      name: 'a week',
      expires_in_days: 7,
    });
    expect(week.status, week.text).toBe(201);
    expect(week.body.expires_at).toBe('2031-05-11T03:02:01.000Z');
  });

  it('a dashboard session ends twelve hours after the clock, and one opened twelve hours ago is already over', async () => {
    const owner = await createAccount(undefined, app.baseUrl);
    at = new Date(Date.now() + 30 * DAY_MS);
    const ahead = await api(app.baseUrl, owner.token).post<{ token: string; expires_at: string }>(
      '/api/v1/account/sessions',
    );
    expect(ahead.status, ahead.text).toBe(201);
    expect(ahead.body.expires_at).toBe(new Date(at.getTime() + 12 * HOUR_MS).toISOString());
    expect((await api(app.baseUrl, ahead.body.token).get('/api/v1/account')).status).toBe(200);

    at = new Date(Date.now() - 12 * HOUR_MS - 60_000);
    const behind = await api(app.baseUrl, owner.token).post<{ token: string; expires_at: string }>(
      '/api/v1/account/sessions',
    );
    expect(behind.status, behind.text).toBe(201);
    expect(new Date(behind.body.expires_at).getTime()).toBeLessThan(Date.now());
    expect((await api(app.baseUrl, behind.body.token).get('/api/v1/account')).status).toBe(401);
  });

  it('an invitation expires seven days after the clock, and one whose week is over by then is not pending', async () => {
    at = new Date(Date.now() + 3 * DAY_MS);
    const owner = await createAccount(undefined, app.baseUrl);
    const project = await createProject(owner.token, undefined, app.baseUrl);
    const invited = await api(app.baseUrl, owner.token).post<{ expires_at: string }>(
      `/api/v1/projects/${project.id}/invitations`,
      { email: `dated-${Date.now()}@example.test`, role: 'read' },
    );
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body.expires_at).toBe(new Date(at.getTime() + 7 * DAY_MS).toISOString());

    at = new Date(Date.now() - 8 * DAY_MS);
    const stale = await api(app.baseUrl, owner.token).post<{ expires_at: string }>(
      `/api/v1/projects/${project.id}/invitations`,
      { email: `stale-${Date.now()}@example.test`, role: 'read' },
    );
    expect(stale.status, stale.text).toBe(201);
    const listed = await api(app.baseUrl, owner.token).get<{ invitations: Array<{ expires_at: string }> }>(
      `/api/v1/projects/${project.id}/invitations`,
    );
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.invitations.map((i) => i.expires_at)).toEqual([invited.body.expires_at]);
  });
});
