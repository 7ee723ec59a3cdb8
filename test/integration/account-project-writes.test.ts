/**
 * The account, project and membership writes, each now one statement or one guarded batch:
 * what they refuse, with which status, and that a refusal changes nothing.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type ApiClient,
  api,
  createAccount,
  createProject,
  type TestAccount,
  uniqueName,
} from '../helpers/api';
import { metadata } from '../helpers/connections';

let owner: TestAccount;
let admin: TestAccount;
let as: ApiClient;
let asAdmin: ApiClient;
let projectId: string;
const member = (who: string) => `/api/v1/projects/${projectId}/members/${who}`;
const roleOf = async (accountId: string) =>
  (
    await metadata<{ role: string }>(
      'select role from project_members where project_id = $1 and account_id = $2',
      [projectId, accountId],
    )
  )[0]?.role;

beforeAll(async () => {
  owner = await createAccount();
  admin = await createAccount();
  as = api().as(owner.token);
  asAdmin = api().as(admin.token);
  projectId = (await createProject(owner.token)).id;
  expect((await as.put(member(admin.id), { role: 'admin' })).status).toBe(200);
});

describe('accounts', () => {
  it('refuses a taken e-mail with 409 and issues no second token', async () => {
    const taken = await createAccount();
    const res = await api(undefined, inject('operatorToken')).post('/api/v1/accounts', {
      email: taken.email,
    });
    expect(res.status).toBe(409);
    expect((res.body as { error: { code: string } }).error.code).toBe('CONFLICT');
    const tokens = await metadata('select 1 from account_tokens where account_id = $1', [taken.id]);
    expect(tokens).toHaveLength(1);
    expect((await api().as(taken.token).get('/api/v1/account')).status).toBe(200);
  });
});

describe('projects', () => {
  it('makes its creator the owner, and takes a suffixed slug when the name is taken', async () => {
    const name = uniqueName('same');
    const first = await createProject(owner.token, name);
    const second = await createProject(owner.token, name);
    expect(first.slug).toBe(name);
    expect(second.slug).toMatch(new RegExp(`^${name}-[a-z0-9]{6}$`));
    const owners = await metadata<{ account_id: string; role: string }>(
      'select account_id, role from project_members where project_id = $1',
      [second.id],
    );
    expect(owners).toEqual([{ account_id: owner.id, role: 'owner' }]);
  });

  it('refuses a slug asked for and taken with 409 and makes no project', async () => {
    const slug = uniqueName('slug');
    expect((await as.post('/api/v1/projects', { name: 'one', slug })).status).toBe(201);
    const res = await as.post('/api/v1/projects', { name: 'two', slug });
    expect(res.status).toBe(409);
    expect(await metadata("select 1 from projects where name = 'two' and slug = $1", [slug])).toHaveLength(0);
  });
});

describe('members', () => {
  it('answers 404 for an account that does not exist, whatever the role asked', async () => {
    const nobody = '00000000-0000-4000-8000-000000000000';
    expect((await as.put(member(nobody), { role: 'read' })).status).toBe(404);
    expect((await asAdmin.put(member(nobody), { role: 'owner' })).status).toBe(404);
  });

  it('lets only an owner grant or change the owner role', async () => {
    const other = await createAccount();
    expect((await asAdmin.put(member(other.id), { role: 'owner' })).status).toBe(403);
    expect(await roleOf(other.id)).toBeUndefined();
    expect((await asAdmin.put(member(owner.id), { role: 'read' })).status).toBe(403);
    expect(await roleOf(owner.id)).toBe('owner');
    expect((await asAdmin.put(member(other.id), { role: 'write' })).status).toBe(200);
    expect(await roleOf(other.id)).toBe('write');
  });

  it('keeps the last owner: demoting or removing it is 409 and changes nothing', async () => {
    const demote = await as.put(member(owner.id), { role: 'admin' });
    expect(demote.status).toBe(409);
    expect((demote.body as { error: { message: string } }).error.message).toBe(
      'a project must keep at least one owner',
    );
    expect((await as.delete(member(owner.id))).status).toBe(409);
    expect(await roleOf(owner.id)).toBe('owner');
  });

  it('lets only an owner remove an owner, and says when there was no member to remove', async () => {
    const second = await createAccount();
    expect((await as.put(member(second.id), { role: 'owner' })).status).toBe(200);
    expect((await asAdmin.delete(member(second.id))).status).toBe(403);
    expect(await roleOf(second.id)).toBe('owner');
    const removed = await as.delete(member(second.id));
    expect([removed.status, removed.body]).toEqual([200, { removed: true }]);
    const again = await as.delete(member(second.id));
    expect([again.status, again.body]).toEqual([200, { removed: false }]);
  });
});
