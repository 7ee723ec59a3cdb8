/**
 * The authorization matrix of contract §7 (service credentials, principals, the Access
 * listing), walked like authorization-matrix.test.ts walks §3–§5: each kind of caller gets
 * exactly one status. Credentials and principals are the admin role's (a write member is 403,
 * a project API key 403 whatever its capabilities, a non-member 404); the Access listing needs
 * read.
 */
import { beforeAll, expect } from 'vitest';
import { api, type TestProject, uniqueName } from '../helpers/api';
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
const ids = { database: '', bucket: '', authApp: '', principal: '' };

const raw = (caller: Caller, method: string, path: string, body?: unknown) =>
  requestAs(headers, caller, method, path, body);
const owner = () => api().as(ownerToken);
const P = () => `/projects/${project.id}`;

beforeAll(async () => {
  ({ headers, project, ownerToken } = await makeCallers());
  const made = async (path: string, body: Record<string, unknown>) => {
    const res = await owner().post<{ id: string }>(`/api/v1${P()}/${path}`, body);
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  };
  ids.database = await made('databases', { name: uniqueName('db').replace(/-/g, '_'), engine: 'postgresql' });
  ids.bucket = await made('buckets', { name: uniqueName('bk') });
  ids.authApp = await made('auth-apps', { app_id: uniqueName('app') });
  ids.principal = await made(`databases/${ids.database}/principals`, {
    name: 'standing',
    level: 'read-only',
  });
});

const adminOnly = { ...unauth, ...keysRefused, non_member: 404, read: 403, write: 403 } as const;

const rows: Row[] = [
  {
    name: 'GET /databases/:dbId/credentials',
    call: (c) => raw(c, 'GET', `${P()}/databases/${ids.database}/credentials`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'POST /databases/:dbId/credentials/rotate',
    call: (c) => raw(c, 'POST', `${P()}/databases/${ids.database}/credentials/rotate`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'GET /buckets/:bucketId/credentials',
    call: (c) => raw(c, 'GET', `${P()}/buckets/${ids.bucket}/credentials`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'POST /buckets/:bucketId/credentials/rotate',
    call: (c) => raw(c, 'POST', `${P()}/buckets/${ids.bucket}/credentials/rotate`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'POST /databases/:dbId/principals',
    call: (c) =>
      raw(c, 'POST', `${P()}/databases/${ids.database}/principals`, {
        name: uniqueName('p'),
        level: 'read-only',
      }),
    expect: adminOnly,
    rest: 201,
  },
  {
    name: 'POST /buckets/:bucketId/principals',
    call: (c) =>
      raw(c, 'POST', `${P()}/buckets/${ids.bucket}/principals`, { name: uniqueName('p'), level: 'read' }),
    expect: adminOnly,
    rest: 201,
  },
  {
    name: 'GET /databases/:dbId/principals',
    call: (c) => raw(c, 'GET', `${P()}/databases/${ids.database}/principals`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'POST /databases/:dbId/principals/:principalId/rotate',
    call: (c) => raw(c, 'POST', `${P()}/databases/${ids.database}/principals/${ids.principal}/rotate`),
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'DELETE /databases/:dbId/principals/:principalId',
    call: async (c) => {
      const made = await owner().post<{ id: string }>(`/api/v1${P()}/databases/${ids.database}/principals`, {
        name: uniqueName('gone'),
        level: 'read-only',
      });
      return raw(c, 'DELETE', `${P()}/databases/${ids.database}/principals/${made.body.id}`);
    },
    expect: adminOnly,
    rest: 200,
  },
  {
    name: 'GET /databases/:dbId/access',
    call: (c) => raw(c, 'GET', `${P()}/databases/${ids.database}/access`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'GET /buckets/:bucketId/access',
    call: (c) => raw(c, 'GET', `${P()}/buckets/${ids.bucket}/access`),
    expect: projectRead,
    rest: 200,
  },
  {
    name: 'GET /auth-apps/:authAppId/access',
    call: (c) => raw(c, 'GET', `${P()}/auth-apps/${ids.authApp}/access`),
    expect: projectRead,
    rest: 200,
  },
];

walkMatrix(rows);
