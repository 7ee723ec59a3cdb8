/**
 * MongoDB connection users through the Atlas Administration API adapter, against the Atlas
 * stand-in that checks every request against the documented wire shape.
 */

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Adapters } from '../../functions/adapters';
import { ATLAS_MEDIA_TYPE, AtlasMongoAdmin } from '../../functions/adapters/mongodb-admin';
import type { Bindings } from '../../functions/config';
import type { DatabaseLevel } from '../../functions/domain/levels';
import { atlasProject } from '../../functions/kinds/mongodb/mongodb-system';
import { loadConfig } from '../../functions/kinds/registry';
import { randomLowerAlnum } from '../../functions/lib/ids';
import {
  createConnectionCredential,
  dropCredential,
  rotateCredential,
  setCredentialLevel,
} from '../../functions/use-cases/credentials/connection-credential';
import type { DatabaseRow } from '../../functions/use-cases/resources/databases';
import { freePort } from '../../scripts/local/net';
import { type AtlasStandIn, startAtlasStandIn } from '../../scripts/local/stand-ins/mongodb-atlas-stand-in';
import { adapterOf, adaptersWith, replacing } from '../helpers/adapters';
import { databaseTarget } from '../helpers/credential-targets';

let atlas: AtlasStandIn;
let admin: AtlasMongoAdmin;
let adapters: Adapters;
const config = () => loadConfig(inject('workerEnv') as unknown as Bindings);
const physical = `docs_${randomLowerAlnum(8)}`;

const target = (over: Partial<DatabaseRow> = {}) =>
  databaseTarget(physical, { name: 'docs', engine: 'mongodb', ...over });

async function own(level: DatabaseLevel) {
  const made = await createConnectionCredential(
    { adapters, config: config() },
    { target: target(), level: { kind: 'database', level } },
  );
  if (made.mode !== 'own') throw new Error('expected an own user');
  return made;
}

beforeAll(async () => {
  atlas = await startAtlasStandIn();
  admin = new AtlasMongoAdmin(atlas.adminUrl, atlas.adminKey);
  adapters = adaptersWith(adapterOf(atlasProject, admin));
});
afterAll(() => atlas.stop());

describe('MongoDB connection users (replica set)', () => {
  it('creates c_ users with readWrite on that one database, read at read-only', async () => {
    const rw = await own('connect');
    const ro = await own('read-only');
    expect(rw.name).toMatch(/^c_[a-z0-9]{8}$/);
    expect(atlas.user(rw.name)).toMatchObject({
      databaseName: 'admin',
      roles: [{ roleName: 'readWrite', databaseName: physical }],
      password: rw.secret,
    });
    expect(atlas.user(ro.name)?.roles).toEqual([{ roleName: 'read', databaseName: physical }]);
  });

  it('sends the documented create shape with the versioned media type', async () => {
    const made = await own('connect');
    const create = atlas.requests.find(
      (r) => r.method === 'POST' && (r.body as { username?: string }).username === made.name,
    );
    expect(create?.path).toMatch(/^\/api\/atlas\/v2\/groups\/[0-9a-f]{24}\/databaseUsers$/);
    expect(Object.keys(create?.body as object).sort()).toEqual([
      'databaseName',
      'groupId',
      'labels',
      'password',
      'roles',
      'username',
    ]);
    expect(ATLAS_MEDIA_TYPE).toBe('application/vnd.atlas.2023-01-01+json');
  });

  it('adapters made one after another reuse one access token (Atlas allows 100 live per account)', async () => {
    await new AtlasMongoAdmin(atlas.adminUrl, atlas.adminKey).listUsers();
    const issued = atlas.tokensIssued();
    for (let i = 0; i < 3; i++) await new AtlasMongoAdmin(atlas.adminUrl, atlas.adminKey).listUsers();
    expect(atlas.tokensIssued()).toBe(issued);
  });

  it('a level change keeps the name and password; rotate changes only the password', async () => {
    const made = await own('read-only');
    await setCredentialLevel(
      { adapters, config: config() },
      { target: target(), name: made.name, level: { kind: 'database', level: 'connect' } },
    );
    expect(atlas.user(made.name)).toMatchObject({
      roles: [{ roleName: 'readWrite', databaseName: physical }],
      password: made.secret,
    });
    const other = await own('connect');
    const rotated = await rotateCredential(
      { adapters, config: config() },
      { target: target(), name: made.name },
    );
    expect(rotated.name).toBe(made.name);
    expect(atlas.user(made.name)?.password).toBe(rotated.secret);
    expect(rotated.secret).not.toBe(made.secret);
    expect(atlas.user(other.name)?.password).toBe(other.secret);
  });

  it('drop deletes only that user and is idempotent', async () => {
    const made = await own('connect');
    const keep = await own('connect');
    await dropCredential({ adapters, config: config() }, { target: target(), name: made.name });
    expect(atlas.user(made.name)).toBeUndefined();
    expect(atlas.user(keep.name)).toBeDefined();
    await dropCredential({ adapters, config: config() }, { target: target(), name: made.name });
  });

  it('lists users with their databases and creation time', async () => {
    const made = await own('connect');
    const listed = (await admin.listUsers()).find((u) => u.username === made.name);
    expect(listed?.databases).toEqual([physical]);
    expect(Math.abs((listed?.createdAt?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
  });
});

describe('shared credential and failures', () => {
  it('a standalone database or a stopped one hands out the shared user and calls nothing', async () => {
    const count = atlas.requests.length;
    expect(
      await createConnectionCredential(
        { adapters, config: config() },
        {
          target: target({ replicaSet: false }),
          level: {
            kind: 'database',
            level: 'connect',
          },
        },
      ),
    ).toEqual({ mode: 'shared' });
    expect(
      await createConnectionCredential(
        { adapters, config: config() },
        {
          target: target({ status: 'stopped' }),
          level: {
            kind: 'database',
            level: 'connect',
          },
        },
      ),
    ).toEqual({ mode: 'shared' });
    expect(atlas.requests.length).toBe(count);
  });

  it('an unreachable admin API answers 503 and creates nothing', async () => {
    const closed = new URL(atlas.adminUrl);
    closed.port = String(await freePort());
    const down = replacing(
      adapters,
      adapterOf(atlasProject, new AtlasMongoAdmin(closed.toString(), atlas.adminKey)),
    );
    const count = atlas.requests.length;
    await expect(
      createConnectionCredential(
        { adapters: down, config: config() },
        { target: target(), level: { kind: 'database', level: 'connect' } },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
    expect(atlas.requests.length).toBe(count);
  });

  it('a refusing admin API (bad key) answers 503', async () => {
    const bad = replacing(
      adapters,
      adapterOf(atlasProject, new AtlasMongoAdmin(atlas.adminUrl, 'someone:wrong')),
    );
    await expect(
      createConnectionCredential(
        { adapters: bad, config: config() },
        { target: target(), level: { kind: 'database', level: 'connect' } },
      ),
    ).rejects.toMatchObject({
      status: 503,
    });
  });
});
