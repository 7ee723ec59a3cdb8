/** Plans for one site's connections: validation first, then exactly the diff. */

import { describe, expect, it } from 'vitest';
import type { Level } from '../../domain/levels';
import type { ApiError } from '../../lib/errors';
import { validationError } from '../../lib/openapi';
import { DesiredConnectionSchema } from '../../routes/connection-schemas';
import type { ConnectionInfo, ResourceInfo } from './model';
import { isNoop, sitePatchNames } from './plan';
import type { SiteContext } from './site-access';
import { planConnect, planDisconnect, planPromote, planReplace, planRotate } from './site-plans';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const resource = (n: number, kind: ResourceInfo['kind'], available = true): ResourceInfo => ({
  kind,
  id: uuid(n),
  name: `svc${n}`,
  engine: kind === 'database' ? 'postgresql' : null,
  family: kind === 'database' ? 'postgresql' : kind,
  available,
  createdAt: new Date(n),
});
const conn = (
  r: ResourceInfo,
  level: Level,
  mode: ConnectionInfo['credentialMode'],
  at: number,
  holdsPlain = at === 1,
): ConnectionInfo => ({
  id: uuid(100 + at),
  projectId: uuid(900),
  siteId: uuid(800),
  siteSlug: 'web',
  kind: r.kind,
  resourceId: r.id,
  resourceName: r.name,
  family: r.family,
  level,
  credentialMode: mode,
  credentialName: mode === 'own' ? `c_${String(at).padStart(8, '0')}` : null,
  holdsPlain,
  createdAt: new Date(at),
});

const db1 = resource(1, 'database');
const db2 = resource(2, 'database');
const app = resource(3, 'auth_app');
const off = resource(4, 'auth_app', false);
const ctx = (connections: ConnectionInfo[]): SiteContext => ({
  project: { id: uuid(900), slug: 'p' },
  site: { id: uuid(800), slug: 'web' },
  connections,
  resources: [db1, db2, app, off],
});
const status = (fn: () => unknown) => {
  try {
    fn();
    return 0;
  } catch (err) {
    return (err as ApiError).status;
  }
};

describe('planConnect', () => {
  it('a new connection at the default level', () => {
    const plan = planConnect(ctx([]), { kind: 'auth_app', resource_id: app.id });
    expect(plan.adds.map((a) => [a.resource.id, a.grant.level])).toEqual([[app.id, 'client']]);
  });
  it('the same level again changes nothing; another level is a level change', () => {
    const c = ctx([conn(db1, 'connect', 'own', 1)]);
    expect(isNoop(planConnect(c, { kind: 'database', resource_id: db1.id }))).toBe(true);
    expect(planConnect(c, { kind: 'database', resource_id: db1.id, level: 'read-only' }).levels).toHaveLength(
      1,
    );
  });
  it('refuses a resource of none, and a disabled auth app with 400', () => {
    expect(status(() => planConnect(ctx([]), { kind: 'bucket', resource_id: db1.id }))).toBe(400);
    expect(status(() => planConnect(ctx([]), { kind: 'database', resource_id: 'x' }))).toBe(400);
    expect(status(() => planConnect(ctx([]), { kind: 'auth_app', resource_id: off.id }))).toBe(400);
  });
});

describe("the route's schema of a wanted connection", () => {
  const parse = (body: unknown) => DesiredConnectionSchema.safeParse(body);
  const refusal = (body: unknown) => {
    const result = parse(body);
    if (result.success) return null;
    const err = validationError(result.error);
    return { status: err.status, code: err.code, message: err.message, field: err.field };
  };
  it("refuses a level of another kind with 400 VALIDATION_FAILED (one code for a body failing validation) naming the kind's levels", () => {
    expect(refusal({ kind: 'database', resource_id: db1.id, level: 'admin' })).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'level: a database accepts the levels read-only, connect',
      field: 'level',
    });
    expect(refusal({ kind: 'auth_app', resource_id: app.id, level: 'read' })?.message).toBe(
      'level: a auth app accepts the levels client, admin',
    );
  });
  it('an unknown kind stays a VALIDATION_FAILED of the kind field', () => {
    expect(refusal({ kind: 'queue', resource_id: db1.id })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      field: 'kind',
    });
  });
  it('parses a level of the kind into the typed union, and leaves an absent level absent', () => {
    expect(parse({ kind: 'bucket', resource_id: 'b', level: 'read', site_slug: 'ignored' }).data).toEqual({
      kind: 'bucket',
      resource_id: 'b',
      level: 'read',
    });
    expect(parse({ kind: 'database', resource_id: 'd' }).data).toEqual({
      kind: 'database',
      resource_id: 'd',
      level: undefined,
    });
  });
});

describe('planReplace', () => {
  const current = [conn(db1, 'connect', 'own', 1), conn(app, 'client', 'none', 2)];
  it('the unchanged set, in any order, changes nothing', () => {
    const plan = planReplace(ctx(current), [
      { kind: 'auth_app', resource_id: app.id },
      { kind: 'database', resource_id: db1.id.toUpperCase() },
    ]);
    expect(isNoop(plan)).toBe(true);
  });
  it('computes adds, level changes and removes', () => {
    const plan = planReplace(ctx(current), [
      { kind: 'database', resource_id: db1.id, level: 'read-only' },
      { kind: 'database', resource_id: db2.id },
    ]);
    expect(plan.adds.map((a) => a.resource.id)).toEqual([db2.id]);
    expect(plan.levels.map((l) => [l.conn.resourceId, l.grant.level])).toEqual([[db1.id, 'read-only']]);
    expect(plan.removes.map((r) => r.resourceId)).toEqual([app.id]);
  });
  it('refuses a set naming one service twice, before anything else', () => {
    const twice = [
      { kind: 'database' as const, resource_id: db2.id },
      { kind: 'database' as const, resource_id: db2.id, level: 'read-only' as const },
    ];
    expect(status(() => planReplace(ctx(current), twice))).toBe(400);
  });
  // contract §9: the plain names never move to another live connection by themselves.
  it('the plain names are unset when their holder goes, and move to no other connection', () => {
    const two = [conn(db1, 'connect', 'own', 1), conn(db2, 'connect', 'own', 2)];
    const plan = planReplace(ctx(two), [{ kind: 'database', resource_id: db2.id }]);
    expect(sitePatchNames(plan, uuid(800), [])).toEqual({
      set: [],
      unset: ['DATABASE_URL', 'DATABASE_URL_SVC1'],
    });
  });
  it('promote moves the plain names to that connection; promoting the holder is no change', () => {
    const two = [conn(db1, 'connect', 'own', 1), conn(db2, 'connect', 'own', 2)];
    const plan = planPromote(ctx(two), 'database', db2.id);
    expect(sitePatchNames(plan, uuid(800), [])).toEqual({
      set: ['DATABASE_URL', 'DATABASE_URL_SVC2'],
      unset: [],
    });
    expect(isNoop(planPromote(ctx(two), 'database', db1.id))).toBe(true);
    expect(status(() => planPromote(ctx(two), 'database', uuid(77)))).toBe(404);
  });
});

describe('planDisconnect and planRotate', () => {
  it('disconnecting what is not connected is no plan', () => {
    expect(planDisconnect(ctx([]), 'database', db1.id)).toBeNull();
  });
  it('rotate: 400 for an auth app, 404 when not connected, 409 on the shared credential', () => {
    expect(status(() => planRotate(ctx([conn(app, 'client', 'none', 1)]), 'auth_app', app.id))).toBe(400);
    expect(status(() => planRotate(ctx([]), 'database', db1.id))).toBe(404);
    const shared = ctx([conn(db1, 'connect', 'shared', 1)]);
    expect(status(() => planRotate(shared, 'database', db1.id))).toBe(409);
    expect(planRotate(ctx([conn(db1, 'connect', 'own', 1)]), 'database', db1.id).rotates).toHaveLength(1);
  });
});
