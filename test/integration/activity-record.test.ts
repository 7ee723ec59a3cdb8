/**
 * The Activity record's API (contract §13): a change adds exactly one event naming its actor
 * and way in, newest first, filtered and paged by cursor, readable by a project's members only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityPage as Page } from '../helpers/activity';
import { type ApiClient, api, createAccount, type TestAccount, uniqueName } from '../helpers/api';

let owner: TestAccount;
let other: TestAccount;
let as: ApiClient;
let projectId: string;
const activity = (query = '') => as.get<Page>(`/api/v1/projects/${projectId}/activity${query}`);

beforeAll(async () => {
  owner = await createAccount();
  other = await createAccount();
  as = api().as(owner.token);
  const made = await as.post<{ id: string }>(
    '/api/v1/projects',
    { name: uniqueName('activity') },
    { headers: { 'x-tether-client': 'cli' } },
  );
  expect(made.status).toBe(201);
  projectId = made.body.id;
});

describe('the project activity record', () => {
  it('records a project creation once, with the account, its e-mail and the way in', async () => {
    const res = await activity();
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(1);
    const [event] = res.body.events;
    expect(event).toMatchObject({
      actor: { type: 'account', id: owner.id, email: owner.email },
      via: 'cli',
      action: 'project.create',
      target: { type: 'project', id: projectId },
      project_id: projectId,
    });
    expect(Date.parse(event?.at ?? '')).not.toBeNaN();
    expect(res.body.next_cursor).toBeNull();
  });

  it('records member changes newest first, filters by action and pages by cursor', async () => {
    expect((await as.put(`/api/v1/projects/${projectId}/members/${other.id}`, { role: 'read' })).status).toBe(
      200,
    );
    expect(
      (await as.put(`/api/v1/projects/${projectId}/members/${other.id}`, { role: 'write' })).status,
    ).toBe(200);
    expect((await as.delete(`/api/v1/projects/${projectId}/members/${other.id}`)).status).toBe(200);
    // Removing someone who is no longer a member changes nothing and records nothing.
    expect((await as.delete(`/api/v1/projects/${projectId}/members/${other.id}`)).status).toBe(200);
    const all = await activity();
    expect(all.body.events.map((e) => e.action)).toEqual([
      'member.remove',
      'member.role',
      'member.role',
      'project.create',
    ]);
    expect(all.body.events[1]).toMatchObject({
      via: 'api',
      target: { type: 'member', id: other.id, name: other.email },
      details: { role: 'write' },
    });
    const members = await activity('?action=member');
    expect(members.body.events).toHaveLength(3);
    const exact = await activity('?action=member.remove');
    expect(exact.body.events.map((e) => e.action)).toEqual(['member.remove']);
    const first = await activity('?limit=2');
    expect(first.body.events.map((e) => e.action)).toEqual(['member.remove', 'member.role']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await activity(`?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.events.map((e) => e.action)).toEqual(['member.role', 'project.create']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('refuses a cursor it never gave with 400, and a non-member with 404', async () => {
    const bad = await activity('?cursor=nonsense');
    expect(bad.status).toBe(400);
    const outsider = await api().as(other.token).get(`/api/v1/projects/${projectId}/activity`);
    expect(outsider.status).toBe(404);
  });
});
