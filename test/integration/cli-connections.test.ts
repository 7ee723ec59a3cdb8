/**
 * `tether connect` as a subprocess against the local stack: levels, confirmations refused without
 * a terminal, unknown names, API refusals (exit 2) and network failure (exit 3). Listing and
 * disconnecting: cli-disconnect.test.ts.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { type ApiClient, api, createAccount } from '../helpers/api';
import { cliHomeForFile, HAS_SCRIPT, runCli, runCliInTerminal, signInAs } from '../helpers/cli';
import { createAuthApp, type Service, seedProject, siteConnections } from '../helpers/connections';

/** The keystroke a person ends a question with, as the terminal delivers it in raw mode. */
const CTRL_C = '\x03';
/** What a cancelled question must never show: readline's AbortError or a stack trace. */
const STACK_OR_ABORT = /unexpected failure|AbortError|\n\s+at /;

let as: ApiClient;
let projectId: string;
let web: { id: string; slug: string };
let admin: { id: string; slug: string };
let db: Service;
let bucket: Service;
let app: Service;
const h = cliHomeForFile();

/** The site's connections straight from the API. */
const connectionsOf = (siteId: string) => siteConnections(as, projectId, siteId);

beforeAll(async () => {
  // Two sites: new services start connected to nothing.
  const world = await seedProject(inject('baseUrl'), 2, { databases: 1, buckets: 1, authApps: 1 });
  ({ as } = world);
  projectId = world.project.id;
  [web, admin] = world.sites as [{ id: string; slug: string }, { id: string; slug: string }];
  [db, bucket, app] = [world.databases[0], world.buckets[0], world.authApps[0]] as [
    Service,
    Service,
    Service,
  ];
  signInAs(h, world);
});

describe('tether connect', () => {
  it('connects a database at the default level and prints its variables', async () => {
    const res = await runCli(h, ['connect', 'database', db.name, '--site', web.slug]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('at level connect');
    expect(res.stdout).toContain('DATABASE_URL');
    const conn = (await connectionsOf(web.id)).find((c) => c.resource_id === db.id);
    expect(conn?.level).toBe('connect');
  });

  it('changes the level of an existing connection, printing the stored object with --json', async () => {
    const res = await runCli(h, [
      'connect',
      'database',
      db.name,
      '--site',
      web.slug,
      '--level',
      'read-only',
      '--json',
    ]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      kind: 'database',
      resource_id: db.id,
      level: 'read-only',
    });
    expect((await connectionsOf(web.id)).find((c) => c.resource_id === db.id)?.level).toBe('read-only');
  });

  it('connects a bucket at read', async () => {
    const res = await runCli(h, ['connect', 'bucket', bucket.name, '--site', web.slug, '--level', 'read']);
    expect(res.code).toBe(0);
    expect((await connectionsOf(web.id)).find((c) => c.resource_id === bucket.id)?.level).toBe('read');
  });

  it('connects an auth app by its app_id at client without asking', async () => {
    const res = await runCli(h, ['connect', 'auth', app.name, '--site', web.slug]);
    expect(res.code).toBe(0);
    expect((await connectionsOf(web.id)).find((c) => c.resource_id === app.id)?.level).toBe('client');
  });

  it('raising an auth app to admin without a terminal and without --yes is refused, and nothing changes', async () => {
    const res = await runCli(h, ['connect', 'auth', app.name, '--site', web.slug, '--level', 'admin']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--yes');
    expect((await connectionsOf(web.id)).find((c) => c.resource_id === app.id)?.level).toBe('client');
  });

  it.skipIf(!HAS_SCRIPT)(
    'on a terminal, raising an auth app to admin asks and goes through on yes',
    async () => {
      const other = await createAuthApp(as, projectId);
      const res = await runCliInTerminal(
        h,
        ['connect', 'auth', other.name, '--site', admin.slug, '--level', 'admin'],
        'y\n',
      );
      expect(res.stdout).toContain(`Raise auth app ${other.name} to admin for site ${admin.slug}?`);
      expect(res.code).toBe(0);
      expect((await connectionsOf(admin.id)).find((c) => c.resource_id === other.id)?.level).toBe('admin');
    },
  );

  it.skipIf(!HAS_SCRIPT)(
    'on a terminal, Ctrl-C at the admin question cancels cleanly and changes nothing',
    async () => {
      const other = await createAuthApp(as, projectId);
      const res = await runCliInTerminal(
        h,
        ['connect', 'auth', other.name, '--site', admin.slug, '--level', 'admin'],
        CTRL_C,
        { typeAfter: /\[y\/N\] / },
      );
      expect(res.stdout).toContain('cancelled; nothing changed');
      expect(res.stdout).not.toMatch(STACK_OR_ABORT);
      expect(res.code).toBe(1);
      expect((await connectionsOf(admin.id)).some((c) => c.resource_id === other.id)).toBe(false);
    },
  );

  it('raising an auth app to admin with --yes goes through', async () => {
    const res = await runCli(h, [
      'connect',
      'auth',
      app.name,
      '--site',
      web.slug,
      '--level',
      'admin',
      '--yes',
    ]);
    expect(res.code).toBe(0);
    expect((await connectionsOf(web.id)).find((c) => c.resource_id === app.id)?.level).toBe('admin');
  });

  it('an auth app already at admin needs no confirmation', async () => {
    const res = await runCli(h, ['connect', 'auth', app.name, '--site', web.slug, '--level', 'admin']);
    expect(res.code).toBe(0);
  });

  it.each([
    ['database', 'no_such_db', /no database "no_such_db".*databases: /],
    ['bucket', 'no-such-bucket', /no bucket "no-such-bucket"/],
    ['auth', 'no-such-app', /no auth "no-such-app"/],
  ])('an unknown %s name is exit 1 and changes nothing', async (kind, name, message) => {
    const before = await connectionsOf(admin.id);
    const res = await runCli(h, ['connect', kind, name, '--site', admin.slug]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(await connectionsOf(admin.id)).toEqual(before);
  });

  it('an unknown site is exit 1 naming the sites', async () => {
    const res = await runCli(h, ['connect', 'database', db.name, '--site', 'nope']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(web.slug);
    expect(res.stderr).toContain(admin.slug);
  });

  it('without --site in a project of two sites it asks for one (exit 1)', async () => {
    const res = await runCli(h, ['connect', 'database', db.name]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('choose a site with --site');
  });

  it('a member with the read role is refused by the API: exit 2 with its message, nothing changes', async () => {
    const reader = await createAccount();
    const added = await as.put(`/api/v1/projects/${projectId}/members/${reader.id}`, { role: 'read' });
    expect(added.status).toBe(200);
    const direct = await api(inject('baseUrl'), reader.token).post<{ error: { message: string } }>(
      `/api/v1/projects/${projectId}/sites/${admin.id}/connections`,
      { kind: 'database', resource_id: db.id },
    );
    expect(direct.status).toBe(403);
    const res = await runCli(h, ['connect', 'database', db.name, '--site', admin.slug], {
      env: { TETHER_TOKEN: reader.token },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(direct.body.error.message);
    expect(res.stderr).toContain('403');
    expect((await connectionsOf(admin.id)).some((c) => c.resource_id === db.id)).toBe(false);
  });

  it('an unreachable API is exit 3', async () => {
    const res = await runCli(h, ['connect', 'database', db.name, '--site', web.slug], {
      env: { TETHER_API_URL: `http://127.0.0.1:${await freePort()}` },
    });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/cannot reach the API .*ECONNREFUSED/);
  });
});
