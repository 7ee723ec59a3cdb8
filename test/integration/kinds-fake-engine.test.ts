/**
 * A database engine is one descriptor in one registry: this file registers an engine of its own
 * (`fakedb`, its system a Map in this process) and drives it through the real routes of the
 * Worker running here (test/helpers/in-process-app.ts) on the real metadata database. Nothing
 * outside this file knows the engine, yet a database of it is created, a site connects to it at
 * both levels with a credential of its own, the site is handed the engine's variables, and the
 * reconciler's drift checks restore and remove its credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseLevel } from '../../functions/domain/levels';
import type { DatabaseEngine } from '../../functions/kinds/database-engine';
import { registerEngine } from '../../functions/kinds/registry';
import { randomLowerAlnum, randomPassword } from '../../functions/lib/ids';
import { type ApiClient, uniqueName } from '../helpers/api';
import { cliHomeOf, runCli } from '../helpers/cli';
import { connectionsPath, effectiveVars, projectPath, type Seeded, seed } from '../helpers/connections';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';

/** What the fake system holds: logins by name, and the databases made. */
interface FakeLogin {
  database: string;
  secret: string;
  level: DatabaseLevel;
  createdAt: Date;
}
const logins = new Map<string, FakeLogin>();
const databases = new Set<string>();

const fakedb: DatabaseEngine = {
  name: 'fakedb',
  label: 'FakeDB',
  family: { name: 'fakedb', plain: ['FAKEDB_URL'], suffixed: (n) => [`FAKEDB_URL_${n}`] },
  sharedReader: false,
  replicaSet: () => false,
  sharedOnly: () => null,
  provisioner: () => ({
    async create(db, level) {
      const name = `c_${randomLowerAlnum(8)}`;
      const secret = randomPassword();
      logins.set(name, { database: db.physicalName, secret, level, createdAt: new Date() });
      return { name, secret };
    },
    async setLevel(_db, name, level) {
      const login = logins.get(name);
      if (login) login.level = level;
    },
    async rotate(_db, name) {
      const login = logins.get(name);
      if (!login) throw new Error(`no login ${name}`);
      login.secret = randomPassword();
      return { name, secret: login.secret };
    },
    async drop(_db, name) {
      logins.delete(name);
    },
    async setSecret(_physical, name, secret) {
      const login = logins.get(name);
      if (login) login.secret = secret;
    },
  }),
  values: (_ctx, database, login) => ({
    FAKEDB_URL: `fakedb://${login.user}:${login.secret}@fake/${database}`,
  }),
  urls: (_ctx, db, login) => {
    const url = `fakedb://${login.user}:${login.secret}@fake/${db.physicalName}`;
    return { url, external_url: url, pooled_url: url };
  },
  async createDatabase(_ctx, physical, main) {
    databases.add(physical);
    logins.set(main.user, {
      database: physical,
      secret: main.secret,
      level: 'connect',
      createdAt: new Date(),
    });
  },
  async dropDatabase(_ctx, physical, names) {
    databases.delete(physical);
    for (const n of names) logins.delete(n);
  },
  setRunning: async () => undefined,
  heldCredentials: async () =>
    [...logins]
      .filter(([name]) => name.startsWith('c_'))
      .map(([name, l]) => ({ name, createdAt: l.createdAt, drop: async () => void logins.delete(name) })),
  async restoreCredential(_ctx, db, login, level) {
    if (logins.has(login.user)) return false;
    logins.set(login.user, { database: db.physicalName, secret: login.secret, level, createdAt: new Date() });
    return true;
  },
};

let app: InProcessApp;
let p: Seeded;
let as: ApiClient;

beforeAll(async () => {
  registerEngine(fakedb);
  app = await startInProcessApp();
  p = await seed(app.baseUrl, 2);
  as = p.as;
});

afterAll(async () => {
  await app?.stop();
});

/** The site's own login on the fake system, read back from the URL it is handed. */
const loginOf = (url: string | undefined) => {
  const m = /^fakedb:\/\/(c_[a-z0-9]{8}):([^@]+)@fake\/(\S+)$/.exec(url ?? '');
  return m ? { name: m[1] as string, secret: m[2] as string, database: m[3] as string } : null;
};

describe('a database engine registered by a test', () => {
  it('is created, connected at both levels, handed as its own variables, and its drift repaired', async () => {
    const name = uniqueName('fk');
    const created = await as.post<{ id: string; engine: string; replica_set: boolean }>(
      `${projectPath(p)}/databases`,
      { name, engine: 'fakedb' },
    );
    expect(created.status).toBe(201);
    expect(created.body.engine).toBe('fakedb');
    expect(created.body.replica_set).toBe(false);
    const id = created.body.id;
    const [site, other] = p.sites;

    // The listing offers it with the database levels and the engine's own names.
    const listing = await as.get<{
      available: Array<{ resource_id: string; levels: string[]; env_names: string[] }>;
    }>(connectionsPath(p, site?.id));
    const offered = listing.body.available.find((a) => a.resource_id === id);
    const n = name.toUpperCase().replace(/-/g, '_');
    expect(offered?.levels).toEqual(['read-only', 'connect']);
    expect(offered?.env_names).toEqual(['FAKEDB_URL', `FAKEDB_URL_${n}`]);

    // Connecting gives the site a login of its own on the fake system, at the default level.
    const conn = await as.post<{ level: string; env_names: string[] }>(connectionsPath(p, site?.id), {
      kind: 'database',
      resource_id: id,
    });
    expect(conn.status).toBe(201);
    expect(conn.body.level).toBe('connect');
    expect(conn.body.env_names).toEqual(['FAKEDB_URL', `FAKEDB_URL_${n}`]);
    const vars = await effectiveVars(p, site?.id);
    expect(vars.FAKEDB_URL).toBe(vars[`FAKEDB_URL_${n}`]);
    expect(vars.DATABASE_URL).toBeUndefined();
    const login = loginOf(vars.FAKEDB_URL);
    expect(login).not.toBeNull();
    const held = logins.get(login?.name ?? '');
    expect(held).toMatchObject({ secret: login?.secret, level: 'connect' });
    expect(databases.has(held?.database ?? '')).toBe(true);

    // A second site at read-only: its own login, at that level.
    const ro = await as.post<{ level: string }>(connectionsPath(p, other?.id), {
      kind: 'database',
      resource_id: id,
      level: 'read-only',
    });
    expect(ro.status).toBe(201);
    const roLogin = loginOf((await effectiveVars(p, other?.id)).FAKEDB_URL);
    expect(roLogin?.name).not.toBe(login?.name);
    expect(logins.get(roLogin?.name ?? '')?.level).toBe('read-only');

    // A level change reaches the fake system through the engine's provisioner; the login stays.
    const up = await as.post<{ level: string }>(connectionsPath(p, other?.id), {
      kind: 'database',
      resource_id: id,
      level: 'connect',
    });
    expect(up.body.level).toBe('connect');
    expect(logins.get(roLogin?.name ?? '')?.level).toBe('connect');

    // Drift: a login gone at the system comes back with its name, secret and level; an orphan
    // older than the grace period goes.
    logins.delete(login?.name ?? '');
    const orphan = `c_${randomLowerAlnum(8)}`;
    logins.set(orphan, { database: 'x', secret: 's', level: 'connect', createdAt: new Date(0) });
    await app.runScheduled();
    expect(logins.get(login?.name ?? '')).toMatchObject({ secret: login?.secret, level: 'connect' });
    expect(logins.has(orphan)).toBe(false);

    // Disconnecting drops the site's login at the system.
    const gone = await as.delete(`${connectionsPath(p, site?.id)}/database/${id}`);
    expect(gone.status).toBe(200);
    expect(logins.has(login?.name ?? '')).toBe(false);
    expect((await effectiveVars(p, site?.id)).FAKEDB_URL).toBeUndefined();

    // Deleting the database drops it at the system with every login on it.
    const deleted = await as.delete(`${projectPath(p)}/databases/${id}`);
    expect(deleted.status).toBe(200);
    expect(databases.has(held?.database ?? '')).toBe(false);
    expect(logins.has(roLogin?.name ?? '')).toBe(false);
  });

  it('is offered by GET /api/v1/kinds (public) and created by the CLI, which names no engine itself', async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/kinds`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const catalog = (await res.json()) as {
      kinds: Array<{ kind: string; engines: string[] | null; levels: string[] }>;
      engines: Array<{ engine: string; label: string; default: boolean; tunnel: boolean }>;
    };
    expect(catalog.engines).toContainEqual({
      engine: 'fakedb',
      label: 'FakeDB',
      default: false,
      tunnel: false,
    });
    expect(catalog.kinds.find((k) => k.kind === 'database')?.engines).toContain('fakedb');

    const home = await cliHomeOf(p, app.baseUrl);
    try {
      const name = uniqueName('fkcli');
      const made = await runCli(home, ['db', 'create', name, '--engine', 'fakedb', '--json']);
      expect(made.code, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout)).toMatchObject({ name, engine: 'fakedb' });
      const refused = await runCli(home, ['db', 'create', uniqueName('fkno'), '--engine', 'nosuchdb']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('unknown engine "nosuchdb": use postgresql, mongodb or fakedb');
    } finally {
      await home.cleanup();
    }
  });
});
