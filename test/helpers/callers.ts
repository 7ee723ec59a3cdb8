/**
 * The callers of the authorization matrix (contract §3–§5): anonymous, malformed header,
 * revoked token, each project role, a dashboard session, a non-member, project API keys with
 * and without capabilities, and the operator token, each as the headers it sends, over one
 * project owned by `owner`.
 */
import { describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject, type TestProject } from './api';

export type Caller =
  | 'anonymous'
  | 'malformed'
  | 'revoked'
  | 'read'
  | 'write'
  | 'admin'
  | 'owner'
  | 'session'
  | 'non_member'
  | 'key_none'
  | 'key_caps'
  | 'operator';

export const CALLERS: Caller[] = [
  'anonymous',
  'malformed',
  'revoked',
  'read',
  'write',
  'admin',
  'owner',
  'session',
  'non_member',
  'key_none',
  'key_caps',
  'operator',
];

/** The headers each caller sends. */
export type CallerHeaders = Partial<Record<Caller, Record<string, string>>>;

/** Sends a request to the management API at `/api/v1${path}` as `caller`; its status and JSON body. */
export async function requestAs(
  headers: CallerHeaders,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${inject('baseUrl')}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers[caller] },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

/** A new project with every caller of {@link CALLERS}: the headers of each, the project, its owner's token. */
export async function makeCallers(): Promise<{
  headers: CallerHeaders;
  project: TestProject;
  ownerToken: string;
}> {
  const headers: CallerHeaders = {};
  const owner = await createAccount();
  const ownerToken = owner.token;
  const project = await createProject(owner.token);
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const as = api().as(owner.token);
  headers.owner = bearer(owner.token);
  headers.malformed = { authorization: 'Bearer' };
  headers.operator = bearer(inject('operatorToken'));
  for (const role of ['read', 'write', 'admin'] as const) {
    const member = await createAccount();
    const res = await as.put(`/api/v1/projects/${project.id}/members/${member.id}`, { role });
    expect(res.status).toBe(200);
    headers[role] = bearer(member.token);
  }
  const outsider = await createAccount();
  headers.non_member = bearer(outsider.token);
  const revoked = await as.post<{ id: string; token: string }>('/api/v1/account/tokens', {
    name: 'to revoke',
  });
  expect((await as.delete(`/api/v1/account/tokens/${revoked.body.id}`)).status).toBe(200);
  headers.revoked = bearer(revoked.body.token);
  const session = await as.post<{ token: string }>('/api/v1/account/sessions');
  expect(session.status).toBe(201);
  headers.session = bearer(session.body.token);
  const none = await as.post<{ key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
    name: 'no caps',
    capabilities: {},
  });
  headers.key_none = bearer(none.body.key);
  const caps = await as.post<{ key: string }>(`/api/v1/projects/${project.id}/api-keys`, {
    name: 'caps',
    capabilities: { storage: true, databases: true },
  });
  headers.key_caps = bearer(caps.body.key);
  return { headers, project, ownerToken };
}

/** A route of a matrix: the status each caller gets; callers not listed share `rest`. */
export type Row = {
  name: string;
  call: (caller: Caller) => Promise<{ status: number }>;
  expect: Partial<Record<Caller, number>>;
  rest: number;
};

/** No credentials, a malformed header or a revoked token: 401 on every route. */
export const unauth = { anonymous: 401, malformed: 401, revoked: 401 } as const;
/** Project API keys and the operator token, where only a person's token is taken. */
export const keysRefused = { key_none: 403, key_caps: 403, operator: 403 } as const;
/** A route any member may call: people outside the project are told it does not exist. */
export const projectRead = { ...unauth, ...keysRefused, non_member: 404 } as const;

/** Walks a matrix: one test per route and caller, `<route> as <caller>`, holding its one status. */
export function walkMatrix(rows: Row[]): void {
  describe.each(rows)('$name', (row) => {
    it.each(CALLERS)('as %s', async (caller) => {
      const expected = row.expect[caller] ?? row.rest;
      const res = await row.call(caller);
      expect(res.status).toBe(expected);
    });
  });
}
