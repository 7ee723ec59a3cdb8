/**
 * A service kind is one descriptor in one registry: this file registers a kind of its own
 * (`cache`, test/helpers/fake-kind/: its services in a table its own migration makes, its system's
 * variables CACHE_*) and drives it through the real routes of the Worker running here
 * (test/helpers/in-process-app.ts) on the real metadata database. Nothing outside the test code
 * knows the kind, yet the environment check reads its variables, GET /api/v1/kinds offers it, its
 * services are made, listed, read and deleted through the routes its descriptor brings, a site is
 * offered its caches, connects to them by id and by name at its levels, is handed its variables
 * (plain and suffixed, then suffixed alone for a second cache) and a live patch of them, changes
 * level, is refused a level or a rotate the kind does not have, disconnects, the console shows it,
 * and the CLI lists, connects and disconnects it and pulls its variables.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Bindings } from '../../functions/config';
import { loadConfig, registerKind } from '../../functions/kinds/registry';
import { type ApiClient, uniqueName } from '../helpers/api';
import { cliHomeOf, runCli } from '../helpers/cli';
import {
  type Connection,
  type ConnectionListing,
  connectionsPath,
  deliveriesOf,
  effectiveVars,
  metadata,
  projectPath,
  type Seeded,
  seed,
} from '../helpers/connections';
import { refusedNames } from '../helpers/environment-check';
import { applyCacheMigrations, cache, cacheSystem, createCache } from '../helpers/fake-kind';
import { type InProcessApp, startInProcessApp } from '../helpers/in-process-app';

/** The cache system's variables, as this deployment sets them. */
const CACHE_ENV = { CACHE_HOST: 'cache.test', CACHE_PORT: '6390' };

let app: InProcessApp;
let p: Seeded;
let as: ApiClient;
let unregister: (() => void) | undefined;

beforeAll(async () => {
  unregister = registerKind(cache);
  await applyCacheMigrations();
  app = await startInProcessApp(CACHE_ENV);
  p = await seed(app.baseUrl, 2);
  as = p.as;
});

afterAll(async () => {
  await app?.stop();
  // The files after this one in its vitest worker share its modules, the registry among them.
  unregister?.();
});

/** The names the environment check refuses, or [] when it accepts `vars` on top of the shared stack's environment. */
const refused = (vars: Record<string, string>): string[] =>
  refusedNames({ ...(inject('workerEnv') as object), ...vars });

describe('a service kind registered by a test', () => {
  it("brings its system's variables, with their defaults and their check, to the environment check", () => {
    const config = loadConfig({ ...(inject('workerEnv') as object) } as unknown as Bindings);
    expect(cacheSystem.settings(config)).toEqual({ CACHE_PORT: 6380, CACHE_TLS: 'off' });
    expect(refused({ CACHE_PORT: 'http' })).toEqual(['CACHE_PORT']);
    expect(refused({ CACHE_TLS: 'on' })).toEqual(['CACHE_HOST']);
    expect(refused({ CACHE_TLS: 'on', CACHE_HOST: 'cache.test' })).toEqual([]);
  });

  it('is offered by GET /api/v1/kinds with its words and levels', async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/kinds`);
    expect(res.status).toBe(200);
    const { kinds } = (await res.json()) as { kinds: Array<Record<string, unknown>> };
    expect(kinds.map((k) => k.kind)).toEqual(['database', 'bucket', 'auth_app', 'cache']);
    expect(kinds.at(-1)).toEqual({
      kind: 'cache',
      noun: 'cache',
      plural: 'caches',
      command_words: ['cache'],
      levels: ['read', 'read-write'],
      level_meanings: { read: 'reads keys', 'read-write': 'reads and writes keys' },
      level_change_consequence: null,
      own_credentials: false,
      engines: null,
      services_path: 'caches',
      creation_fields: [
        { name: 'max_memory_mb', type: 'integer', required: false, minimum: 16, maximum: 4096 },
      ],
    });
  });

  it('has its services made, listed, read and deleted through the routes its descriptor brings', async () => {
    const path = `${projectPath(p)}/caches`;
    const name = uniqueName('store');
    const made = await as.post<Record<string, unknown>>(path, { name, max_memory_mb: 128 });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      name,
      max_memory_mb: 128,
      created_at: expect.any(String),
    });
    const id = made.body.id as string;

    // Its name is its own in the project; its fields are checked by its own schema.
    const taken = await as.post(path, { name });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`a cache named ${name} already exists`);
    expect((await as.post(path, { name: uniqueName('x'), max_memory_mb: 1 })).status).toBe(400);
    expect((await as.post(path, { name: uniqueName('x'), eviction: 'lru' })).status).toBe(400);

    const listed = await as.get<{ caches: Array<Record<string, unknown>> }>(path);
    expect(listed.status).toBe(200);
    expect(listed.body.caches).toContainEqual(made.body);
    expect((await as.get(`${path}/${id}`)).body).toEqual(made.body);
    expect((await as.get(`${path}/${name}`)).body).toEqual(made.body);
    expect((await as.get(`${path}/${randomUUID()}`)).status).toBe(404);

    // Deleting it takes its connection with it, and the site's running app is told.
    const site = p.sites[0];
    expect((await as.post(connectionsPath(p, site?.id), { kind: 'cache', resource_id: id })).status).toBe(
      201,
    );
    const suffixed = `CACHE_URL_${name.toUpperCase().replace(/-/g, '_')}`;
    expect(Object.keys(await effectiveVars(p, site?.id))).toContain(suffixed);
    const deleted = await as.delete(`${path}/${name}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    expect(Object.keys(await effectiveVars(p, site?.id))).not.toContain(suffixed);
    const patches = await deliveriesOf(site?.id ?? '');
    expect(patches.at(-1)?.unset_names).toContain(suffixed);
    expect((await as.get(`${path}/${id}`)).status).toBe(404);
    expect((await as.delete(`${path}/${id}`)).status).toBe(404);
    // A removed cache's name is free again (its folder's migration keeps names unique among live ones).
    const again = await as.post<{ id: string }>(path, { name });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).not.toBe(id);
  });

  it('connects a new cache to the only site of a one-site project, as every service', async () => {
    const one = await seed(app.baseUrl, 1);
    const made = await createCache(one.as, one.project.id, uniqueName('only'));
    const listing = (await one.as.get<ConnectionListing>(connectionsPath(one))).body;
    expect(listing.connections).toEqual([
      expect.objectContaining({ kind: 'cache', resource_id: made.id, level: 'read' }),
    ]);
    expect((await effectiveVars(one)).CACHE_URL).toMatch(/^redis:\/\/ro@cache\.test:6390\/cache_only/);
  });

  it('is connected, handed its variables, changed in level, refused what it lacks, and disconnected', async () => {
    const site = p.sites[0];
    const first = await createCache(as, p.project.id, uniqueName('sessions'));
    const suffixOf = (name: string) => `CACHE_URL_${name.toUpperCase().replace(/-/g, '_')}`;

    // Offered to the site with its levels and the name it would add.
    const offered = (await as.get<ConnectionListing>(connectionsPath(p, site?.id))).body.available;
    expect(offered).toContainEqual({
      kind: 'cache',
      resource_id: first.id,
      resource_name: first.name,
      levels: ['read', 'read-write'],
      env_names: ['CACHE_URL', suffixOf(first.name)],
    });

    // Connected at its default level, handed its variables, and the running app patched with them.
    const made = await as.post<Connection>(connectionsPath(p, site?.id), {
      kind: 'cache',
      resource_id: first.id,
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      kind: 'cache',
      resource_name: first.name,
      level: 'read',
      env_names: ['CACHE_URL', suffixOf(first.name)],
    });
    const physical = `cache_${first.name.replace(/-/g, '_')}`;
    expect((await effectiveVars(p, site?.id)).CACHE_URL).toBe(`redis://ro@cache.test:6390/${physical}`);
    expect(await deliveriesOf(site?.id ?? '')).toContainEqual(
      expect.objectContaining({ reason: 'connect', set_names: ['CACHE_URL', suffixOf(first.name)] }),
    );

    // A level it does not have is a 400 naming its own; its higher level is taken through the kind's path by name.
    const wrong = await as.post(connectionsPath(p, site?.id), {
      kind: 'cache',
      resource_id: first.id,
      level: 'admin',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('a cache accepts the levels read, read-write');
    const raised = await as.put<{ connections: Connection[] }>(connectionsPath(p, site?.id), {
      connections: [{ kind: 'cache', resource_id: first.id, level: 'read-write' }],
    });
    expect(raised.status, raised.text).toBe(200);
    expect(raised.body.connections).toEqual([
      expect.objectContaining({ kind: 'cache', level: 'read-write' }),
    ]);
    expect((await effectiveVars(p, site?.id)).CACHE_URL).toBe(`redis://rw@cache.test:6390/${physical}`);

    // A second cache: the plain name stays with the first, the second is handed its suffixed one.
    const second = await createCache(as, p.project.id, uniqueName('jobs'));
    const both = await as.post<Connection>(connectionsPath(p, site?.id), {
      kind: 'cache',
      resource_id: second.id,
    });
    expect(both.status, both.text).toBe(201);
    const suffixed = suffixOf(second.name);
    expect(both.body.env_names).toEqual([suffixed]);
    const vars = await effectiveVars(p, site?.id);
    expect(vars[suffixed]).toBe(`redis://ro@cache.test:6390/cache_${second.name.replace(/-/g, '_')}`);

    // It holds no credential of its own, so there is nothing to rotate.
    const rotate = await as.post(`${connectionsPath(p, site?.id)}/cache/${first.id}/rotate`, {});
    expect(rotate.status).toBe(400);

    // Disconnected through its path by name: its names leave the site's variables.
    const gone = await as.delete(`${connectionsPath(p, site?.id)}/cache/${second.name}`);
    expect(gone.status, gone.text).toBe(200);
    expect(Object.keys(await effectiveVars(p, site?.id))).not.toContain(suffixed);
  });

  it('is taken by the CLI by the words the catalog gives it: listed, connected, refused, disconnected, pulled into a .env', async () => {
    const site = p.sites[1];
    const shown = await createCache(as, p.project.id, uniqueName('cli'));
    const conn = await as.post(connectionsPath(p, site?.id), { kind: 'cache', resource_id: shown.id });
    expect(conn.status, conn.text).toBe(201);
    const home = await cliHomeOf(p, app.baseUrl);
    try {
      const listed = await runCli(home, ['connections', '--site', site?.slug ?? '']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`cache\\s+${shown.name}\\s+read\\s+CACHE_URL`));
      const project = await runCli(home, ['connections']);
      expect(project.code, project.stderr).toBe(0);
      expect(project.stdout).toMatch(
        new RegExp(`${site?.slug}\\s+cache\\s+${shown.name}\\s+read\\s+CACHE_URL`),
      );
      // The CLI takes the kind by the words the catalog gives it: connect, a level, rotate, disconnect.
      const other = await createCache(as, p.project.id, uniqueName('cli2'));
      const slug = site?.slug ?? '';
      const connected = await runCli(home, [
        'connect',
        'cache',
        other.name,
        '--site',
        slug,
        '--level',
        'read-write',
      ]);
      expect(connected.code, connected.stderr).toBe(0);
      expect(connected.stdout).toContain(
        `Connected cache ${other.name} to site ${slug} at level read-write.`,
      );
      const wrongLevel = await runCli(home, [
        'connect',
        'cache',
        other.name,
        '--site',
        slug,
        '--level',
        'admin',
      ]);
      expect(wrongLevel.code).toBe(1);
      expect(wrongLevel.stderr).toContain('level "admin" is not a level of cache: use read or read-write');
      const rotated = await runCli(home, ['rotate', 'cache', other.name, '--site', slug]);
      expect(rotated.code).toBe(1);
      expect(rotated.stderr).toContain('a cache connection has no credential to rotate');
      const unknown = await runCli(home, ['connect', 'queue', other.name, '--site', slug]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('unknown kind "queue": use database, bucket, auth or cache');
      const missing = await runCli(home, ['connect', 'cache', 'no-such-cache', '--site', slug]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`no cache "no-such-cache" in project`);
      const disconnected = await runCli(home, ['disconnect', 'cache', other.name, '--site', slug, '--yes']);
      expect(disconnected.code, disconnected.stderr).toBe(0);
      expect(disconnected.stdout).toContain(`Disconnected cache ${other.name} from site ${slug}.`);
      const left = (await as.get<ConnectionListing>(connectionsPath(p, site?.id))).body.connections;
      expect(left.map((c) => c.resource_id)).toEqual([shown.id]);

      // `env pull` writes what the site is handed, the cache's URL among it.
      const pulled = await runCli(home, ['env', 'pull', '--site', site?.slug ?? '']);
      expect(pulled.code, pulled.stderr).toBe(0);
      const written = parse(await readFile(join(home.cwd, '.env'), 'utf8'));
      expect(written.CACHE_URL).toBe((await effectiveVars(p, site?.id)).CACHE_URL);
      expect(written.CACHE_URL).toMatch(/^redis:\/\/ro@cache\.test:6390\/cache_/);
    } finally {
      await home.cleanup();
    }
  });

  it('is made, listed and deleted by the CLI with the commands and options the catalog gives it', async () => {
    const home = await cliHomeOf(p, app.baseUrl);
    const name = uniqueName('made');
    try {
      const made = await runCli(home, ['cache', 'create', name, '--max-memory-mb', '256']);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(`Created cache ${name} in project`);
      const caches = (
        await as.get<{ caches: Array<{ name: string; max_memory_mb: number }> }>(`${projectPath(p)}/caches`)
      ).body.caches;
      expect(caches.find((c) => c.name === name)?.max_memory_mb).toBe(256);

      const listed = await runCli(home, ['cache', 'ls']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/NAME\s+MAX MEMORY MB\s+CREATED/);
      expect(listed.stdout).toMatch(new RegExp(`${name}\\s+256\\s`));

      // The API refuses a value out of the field's bounds, by name; nothing is made.
      const refused = await runCli(home, ['cache', 'create', uniqueName('small'), '--max-memory-mb', '4']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('max_memory_mb');
      const help = await runCli(home, ['cache', 'create', '--help']);
      expect(help.stdout).toContain('--max-memory-mb <value>');

      const deleted = await runCli(home, ['cache', 'delete', name, '--yes']);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain(`Deleted cache ${name}.`);
      const gone = await runCli(home, ['cache', 'delete', name, '--yes']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain(`no cache "${name}" in project`);

      // A word no kind carries stays an unknown command.
      const unknown = await runCli(home, ['queue', 'ls']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("unknown command 'queue'");
    } finally {
      await home.cleanup();
    }
  });

  it("is shown by the console's site and project pages, whose form makes one", async () => {
    const site = p.sites[1];
    const session = await as.post<{ token: string }>('/api/v1/account/sessions');
    const page = (path: string) =>
      fetch(`${app.baseUrl}/console/projects/${p.project.slug}${path}`, {
        headers: { cookie: `tether_session=${session.body.token}` },
      });
    const offered = await createCache(as, p.project.id, uniqueName('offer'));
    const connections = await page(`/sites/${site?.id}/connections`);
    expect(connections.status).toBe(200);
    const html = await connections.text();
    expect(html).toContain('<optgroup label="cache">');
    expect(html).toContain(`value="cache:${offered.id}"`);
    // Its connected cache links to the cache's own page.
    const connected = (await as.get<ConnectionListing>(connectionsPath(p, site?.id))).body.connections;
    const cacheConnection = connected.find((c) => c.kind === 'cache');
    expect(cacheConnection).toBeDefined();
    const cachePage = `/console/projects/${p.project.slug}/services/caches/${cacheConnection?.resource_id}`;
    expect(html).toContain(`href="${cachePage}"`);
    // The project's page has a card of its caches, and its form makes one through the kind's route.
    const overview = await page('');
    expect(overview.status).toBe(200);
    const projectHtml = await overview.text();
    expect(projectHtml).toContain('id="caches-heading"');
    expect(projectHtml).toContain(offered.name);
    expect(projectHtml).toContain('Create cache');
    // The form offers the fields the kind is made with, within their bounds.
    expect(projectHtml).toMatch(
      /<input type="number" name="max_memory_mb"[^>]* min="16" max="4096" step="1"/,
    );
    const csrf = /name="_csrf" value="([^"]+)"/.exec(projectHtml)?.[1] ?? '';
    const formName = uniqueName('form');
    const posted = await fetch(`${app.baseUrl}/console/projects/${p.project.slug}/services/caches`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `tether_session=${session.body.token}`,
        'content-type': 'application/x-www-form-urlencoded',
        origin: app.baseUrl,
      },
      body: new URLSearchParams({ _csrf: csrf, name: formName, max_memory_mb: '128' }).toString(),
    });
    expect(posted.status).toBe(303);
    const caches = (
      await as.get<{ caches: Array<{ name: string; max_memory_mb: number }> }>(`${projectPath(p)}/caches`)
    ).body.caches;
    expect(caches.find((c) => c.name === formName)?.max_memory_mb).toBe(128);

    // A cache's page: what it is, the sites connected to it, and its deletion after a confirmation.
    expect(projectHtml).toContain(`href="/console/projects/${p.project.slug}/services/caches/${offered.id}"`);
    const shownPage = await fetch(`${app.baseUrl}${cachePage}`, {
      headers: { cookie: `tether_session=${session.body.token}` },
    });
    expect(shownPage.status).toBe(200);
    const pageHtml = await shownPage.text();
    expect(pageHtml).toContain(`Cache ${cacheConnection?.resource_name}`);
    expect(pageHtml).toContain('max memory mb 64');
    expect(pageHtml).toContain(`>${site?.slug}</a>`);
    expect(pageHtml).toContain('Delete cache');
    const formCache = caches.find((c) => c.name === formName) as unknown as { id: string };
    const deletion = (confirm?: 'yes') =>
      fetch(`${app.baseUrl}/console/projects/${p.project.slug}/services/caches/${formCache.id}/delete`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: `tether_session=${session.body.token}`,
          'content-type': 'application/x-www-form-urlencoded',
          origin: app.baseUrl,
        },
        body: new URLSearchParams({ _csrf: csrf, ...(confirm ? { confirm } : {}) }).toString(),
      });
    const asked = await deletion();
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete this cache and its connections?');
    expect((await as.get(`${projectPath(p)}/caches/${formCache.id}`)).status).toBe(200);
    const confirmed = await deletion('yes');
    expect(confirmed.status).toBe(303);
    expect((await as.get(`${projectPath(p)}/caches/${formCache.id}`)).status).toBe(404);
    // A segment no plugin kind has is no page.
    const none = await fetch(
      `${app.baseUrl}/console/projects/${p.project.slug}/services/queues/${formCache.id}`,
      {
        headers: { cookie: `tether_session=${session.body.token}` },
      },
    );
    expect(none.status).toBe(404);
  });

  it('leaves a removed cache out of what a site is offered and handed', async () => {
    const site = p.sites[1];
    const removed = await createCache(as, p.project.id, uniqueName('old'));
    const conn = await as.post(connectionsPath(p, site?.id), { kind: 'cache', resource_id: removed.id });
    expect(conn.status, conn.text).toBe(201);
    await metadata('update fake_caches set deleted_at = now() where id = $1', [removed.id]);
    const listing = (await as.get<ConnectionListing>(connectionsPath(p, site?.id))).body;
    expect(listing.connections.map((c) => c.resource_id)).not.toContain(removed.id);
    expect(listing.available.map((a) => a.resource_id)).not.toContain(removed.id);
    const vars = await effectiveVars(p, site?.id);
    expect(Object.values(vars)).not.toContain(expect.stringContaining(removed.name.replace(/-/g, '_')));
    expect((await as.get(`${projectPath(p)}/connections`)).status).toBe(200);
  });
});
