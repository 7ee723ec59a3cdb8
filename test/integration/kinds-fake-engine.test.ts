/**
 * A database engine is one descriptor in one registry: this file registers an engine of its own
 * (`fakedb`, test/helpers/fake-engine.ts: its system a Map in this process behind an admin client,
 * its own variables FAKEDB_*) and drives it through the real routes of the Worker running here
 * (test/helpers/in-process-app.ts) on the real metadata database. Nothing outside the test code
 * knows the engine, yet the environment check reads its variables, the registry builds its
 * adapter from them, a database of it is created, a site connects to it at both levels with a
 * credential of its own, the site is handed the engine's variables at the configured host,
 * a rotation reaches its system, the CLI lists it, and the reconciler's drift checks restore and
 * remove its credentials.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Bindings } from '../../functions/config';
import { loadConfig, registerEngine } from '../../functions/kinds/registry';
import { randomLowerAlnum } from '../../functions/lib/ids';
import { type ApiClient, api, uniqueName } from '../helpers/api';
import { cliHomeOf, runCli } from '../helpers/cli';
import { connectionsPath, effectiveVars, projectPath, type Seeded, seed } from '../helpers/connections';
import { refusedNames } from '../helpers/environment-check';
import { fakedb, fakeServer, fakeSystem } from '../helpers/fake-engine';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';

const { logins, databases } = fakeServer;
/** The fake system's own variables, as this deployment sets them. */
const FAKE_ENV = {
  FAKEDB_HOST: 'fake.test',
  FAKEDB_PORT: '7001',
  FAKEDB_ADMIN_KEY: `fk-${randomLowerAlnum(16)}`,
};

let app: InProcessApp;
let p: Seeded;
let as: ApiClient;
let unregister: (() => void) | undefined;

beforeAll(async () => {
  unregister = registerEngine(fakedb);
  fakeServer.acceptedKey = FAKE_ENV.FAKEDB_ADMIN_KEY;
  app = await startInProcessApp(FAKE_ENV);
  p = await seed(app.baseUrl, 2);
  as = p.as;
});

afterAll(async () => {
  await app?.stop();
  // The files after this one in its vitest worker share its modules, the registry among them.
  unregister?.();
});

/** The site's own login on the fake system, read back from the URL it is handed (at the configured host and port). */
const loginOf = (url: string | undefined) => {
  const m = /^fakedb:\/\/(c_[a-z0-9]{8}):([^@]+)@fake\.test:7001\/(\S+)$/.exec(url ?? '');
  return m ? { name: m[1] as string, secret: m[2] as string, database: m[3] as string } : null;
};

/** The names the environment check refuses, or [] when it accepts `vars` on top of the shared stack's environment. */
const refused = (vars: Record<string, string>): string[] =>
  refusedNames({ ...(inject('workerEnv') as object), ...vars });

describe("a database engine's own variables, merged by the registry", () => {
  it('are read with their defaults and handed to the engine alone', () => {
    const config = loadConfig({ ...(inject('workerEnv') as object) } as unknown as Bindings);
    expect(fakeSystem.settings(config)).toEqual({ FAKEDB_PORT: 7000 });
    expect(
      fakeSystem.settings(
        loadConfig({ ...(inject('workerEnv') as object), ...FAKE_ENV } as unknown as Bindings),
      ),
    ).toEqual({
      ...FAKE_ENV,
      FAKEDB_PORT: 7001,
    });
  });

  it('refuse a malformed one and a check across them, naming each', () => {
    expect(refused({ FAKEDB_PORT: 'not-a-port' })).toEqual(['FAKEDB_PORT']);
    expect(refused({ FAKEDB_ADMIN_KEY: 'k' })).toEqual(['FAKEDB_HOST']);
    expect(refused(FAKE_ENV)).toEqual([]);
  });

  it('make a Worker with a malformed one answer 500 BAD_ENVIRONMENT naming it', async () => {
    const bad = await startInProcessApp({ ...FAKE_ENV, FAKEDB_PORT: '0' });
    try {
      const res = await api(bad.baseUrl, p.token).get<{ error: { code: string; message: string } }>(
        '/api/v1/projects',
      );
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
      expect(res.body.error.message).toContain('FAKEDB_PORT');
    } finally {
      await bad.stop();
    }
  });

  it('without its admin key, the registry builds it no adapter: a database of it is 503 and nothing is made', async () => {
    const bare = await startInProcessApp({ FAKEDB_HOST: 'fake.test' });
    try {
      const before = databases.size;
      const name = uniqueName('fkbare');
      const res = await api(bare.baseUrl, p.token).post<{ error: { code: string; message: string } }>(
        `${projectPath(p)}/databases`,
        { name, engine: 'fakedb' },
      );
      expect(res.status).toBe(503);
      expect(res.body.error.message).toContain('FAKEDB_ADMIN_KEY');
      expect(databases.size).toBe(before);
      const listed = await as.get<{ databases: Array<{ name: string }> }>(`${projectPath(p)}/databases`);
      expect(listed.body.databases.map((d) => d.name)).not.toContain(name);
    } finally {
      await bare.stop();
    }
  });
});

describe('a database engine registered by a test', () => {
  it('is created, connected at both levels, handed as its own variables, rotated, and its drift repaired', async () => {
    fakeServer.callsBy.length = 0;
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
    // Every call reached the fake system through the adapter the registry built from FAKEDB_ADMIN_KEY.
    expect(fakeServer.callsBy.length).toBeGreaterThan(0);
    expect(new Set(fakeServer.callsBy)).toEqual(new Set([FAKE_ENV.FAKEDB_ADMIN_KEY]));

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

    // An immediate rotation gives the site's login a new secret at the fake system, and the site the URL with it.
    const rotated = await as.post(`${connectionsPath(p, site?.id)}/database/${id}/rotate?immediate=true`);
    expect(rotated.status).toBe(204);
    const after = loginOf((await effectiveVars(p, site?.id)).FAKEDB_URL);
    expect(after?.name).toBe(login?.name);
    expect(after?.secret).not.toBe(login?.secret);
    expect(logins.get(login?.name ?? '')?.secret).toBe(after?.secret);
    if (login && after) login.secret = after.secret;

    // Drift: a login gone at the system comes back with its name, secret and level; an orphan
    // older than the grace period goes.
    logins.delete(login?.name ?? '');
    const orphan = `c_${randomLowerAlnum(8)}`;
    logins.set(orphan, { database: 'x', secret: 's', level: 'connect', createdAt: new Date(0) });
    // One tick's whole sweep: what it checks itself and the slices it queues (the stack's other
    // files leave databases enough that this one may fall in a queued slice).
    const from = app.sent.length;
    await app.runScheduled();
    for (let i = from; i < app.sent.length; i++) {
      const message = app.sent[i];
      if (message?.type === 'reconcile-slice') await app.runQueue([message]);
    }
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
      const createdByCli = JSON.parse(made.stdout) as { id: string; name: string; engine: string };
      expect(createdByCli).toMatchObject({ name, engine: 'fakedb' });
      const unknown = await runCli(home, ['db', 'create', uniqueName('fkno'), '--engine', 'nosuchdb']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('unknown engine "nosuchdb": use postgresql, mongodb or fakedb');

      // The CLI's listings show it with its engine, and a site's connection to it with the engine's names.
      const listed = await runCli(home, ['db', 'list']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`${name}\\s+fakedb\\s+running`));
      const site = p.sites[1];
      const conn = await as.post(connectionsPath(p, site?.id), {
        kind: 'database',
        resource_id: createdByCli.id,
      });
      expect(conn.status).toBe(201);
      const connections = await runCli(home, ['connections', '--site', site?.slug ?? '']);
      expect(connections.code, connections.stderr).toBe(0);
      expect(connections.stdout).toMatch(new RegExp(`${name}\\s+connect\\s+FAKEDB_URL`));
    } finally {
      await home.cleanup();
    }
  });
});
