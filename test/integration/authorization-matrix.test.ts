/**
 * The authorization matrix of contract §3–§5: for every route, each kind of caller gets exactly
 * one status. Callers: anonymous, malformed header, revoked token, each project role, a
 * non-member, project API keys with and without the route's capability, the operator token
 * and a dashboard session (helpers/callers.ts).
 */
import { beforeAll } from 'vitest';
import { api, createAccount, type TestProject, uniqueName } from '../helpers/api';
import {
  type Caller,
  type CallerHeaders,
  keysRefused,
  makeCallers,
  projectRead,
  type Row,
  requestAs,
  unauth,
  walkMatrix,
} from '../helpers/callers';

let headers: CallerHeaders;
let project: TestProject;
let ownerToken: string;

const raw = (caller: Caller, method: string, path: string, body?: unknown) =>
  requestAs(headers, caller, method, path, body);

beforeAll(async () => {
  ({ headers, project, ownerToken } = await makeCallers());
});

const rows: Row[] = [
  {
    name: 'POST /accounts',
    call: (c) => raw(c, 'POST', '/accounts', { email: `${uniqueName('m')}@example.test` }),
    expect: { ...unauth, operator: 201 },
    rest: 403,
  },
  {
    name: 'GET /account',
    call: (c) => raw(c, 'GET', '/account'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'POST /account/tokens',
    call: (c) => raw(c, 'POST', '/account/tokens', { name: 'matrix' }),
    // contract §10: a console session may create personal tokens too.
    expect: { ...unauth, ...keysRefused },
    rest: 201,
  },
  {
    name: 'POST /account/sessions',
    call: (c) => raw(c, 'POST', '/account/sessions'),
    expect: { ...unauth, ...keysRefused, session: 403 },
    rest: 201,
  },
  {
    name: 'GET /account/tokens',
    call: (c) => raw(c, 'GET', '/account/tokens'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'GET /account/sessions',
    call: (c) => raw(c, 'GET', '/account/sessions'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'DELETE /account/sessions/:id (none by that id)',
    call: (c) => raw(c, 'DELETE', `/account/sessions/${crypto.randomUUID()}`),
    expect: { ...unauth, ...keysRefused },
    rest: 404,
  },
  {
    name: 'POST /projects',
    call: (c) => raw(c, 'POST', '/projects', { name: uniqueName('p') }),
    expect: { ...unauth, ...keysRefused },
    rest: 201,
  },
  {
    name: 'GET /projects',
    call: (c) => raw(c, 'GET', '/projects'),
    expect: { ...unauth, ...keysRefused },
    rest: 200,
  },
  {
    name: 'GET /projects/:id',
    call: (c) => raw(c, 'GET', `/projects/${project.slug}`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'PUT /projects/:id/members/:accountId (grant read)',
    call: async (c) => {
      const target = await createAccount();
      return raw(c, 'PUT', `/projects/${project.id}/members/${target.id}`, { role: 'read' });
    },
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'DELETE /projects/:id/members/:accountId',
    call: async (c) => {
      const target = await createAccount();
      await api().as(ownerToken).put(`/api/v1/projects/${project.id}/members/${target.id}`, { role: 'read' });
      return raw(c, 'DELETE', `/projects/${project.id}/members/${target.id}`);
    },
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'GET /projects/:id/members',
    call: (c) => raw(c, 'GET', `/projects/${project.slug}/members`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'POST /projects/:id/invitations',
    call: (c) =>
      raw(c, 'POST', `/projects/${project.id}/invitations`, {
        email: `${uniqueName('i')}@example.test`,
        role: 'read',
      }),
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/invitations',
    call: (c) => raw(c, 'GET', `/projects/${project.slug}/invitations`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'POST /projects/:id/api-keys',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/api-keys`, { name: 'k', capabilities: {} }),
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/api-keys',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/api-keys`),
    expect: { ...projectRead, read: 403, write: 403 },
    rest: 200,
  },
  {
    name: 'POST /projects/:id/sites',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/sites`, { slug: uniqueName('s') }),
    expect: { ...projectRead, read: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/sites',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/sites`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'DELETE /projects/:id/sites/:siteId',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'DELETE', `/projects/${project.id}/sites/${site.body.id}`);
    },
    expect: { ...projectRead, read: 403 },
    rest: 200,
  },
  {
    name: 'GET /projects/:id/databases (keys with databases may read)',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/databases`),
    expect: { ...unauth, non_member: 404, key_none: 403, key_caps: 200, operator: 403 },
    rest: 200,
  },
  {
    name: 'GET /projects/:id/buckets (keys with storage may read)',
    call: (c) => raw(c, 'GET', `/projects/${project.id}/buckets`),
    expect: { ...unauth, non_member: 404, key_none: 403, key_caps: 200, operator: 403 },
    rest: 200,
  },
  {
    name: 'POST /projects/:id/buckets',
    call: (c) => raw(c, 'POST', `/projects/${project.id}/buckets`, { name: uniqueName('b') }),
    expect: { ...projectRead, read: 403 },
    rest: 201,
  },
  {
    name: 'GET /projects/:id/sites/:siteId/env',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'GET', `/projects/${project.id}/sites/${site.body.id}/env`);
    },
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'PUT /projects/:id/sites/:siteId/env',
    call: async (c) => {
      const site = await api()
        .as(ownerToken)
        .post<{ id: string }>(`/api/v1/projects/${project.id}/sites`, { slug: uniqueName('s') });
      return raw(c, 'PUT', `/projects/${project.id}/sites/${site.body.id}/env`, { vars: { A: '1' } });
    },
    expect: { ...projectRead, read: 403 },
    rest: 200,
  },
];

walkMatrix(rows);
