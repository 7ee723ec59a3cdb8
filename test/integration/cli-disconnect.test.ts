/**
 * `tether connections` and `tether disconnect` as a subprocess against the local stack: tables
 * and JSON, confirmations (refused without a terminal, cancelled on one), unknown names.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiClient } from '../helpers/api';
import { cliHomeForFile, HAS_SCRIPT, runCli, runCliInTerminal, signInAs } from '../helpers/cli';
import {
  type Connection,
  createSite,
  type Service,
  seedProject,
  siteConnections,
} from '../helpers/connections';

/** Keystrokes a person ends a question with, as the terminal delivers them in raw mode. */
const CTRL_C = '\x03';
const CTRL_D = '\x04';
/** What a cancelled question must never show: readline's AbortError or a stack trace. */
const STACK_OR_ABORT = /unexpected failure|AbortError|\n\s+at /;

let as: ApiClient;
let projectId: string;
let web: { id: string; slug: string };
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
  web = world.site;
  [db, bucket, app] = [world.databases[0], world.buckets[0], world.authApps[0]] as [
    Service,
    Service,
    Service,
  ];
  // The web site holds what \`tether connect\` leaves it with in cli-connections.test.ts.
  for (const [kind, service, level] of [
    ['database', db, 'read-only'],
    ['bucket', bucket, 'read'],
    ['auth_app', app, 'admin'],
  ] as const) {
    const res = await as.post(`/api/v1/projects/${projectId}/sites/${web.id}/connections`, {
      kind,
      resource_id: service.id,
      level,
    });
    expect(res.status, res.text).toBe(201);
  }
  signInAs(h, world);
});

describe('tether connections', () => {
  it('lists a site as a table of kind, name, level and variable names', async () => {
    const res = await runCli(h, ['connections', '--site', web.slug]);
    expect(res.code).toBe(0);
    for (const word of [
      'KIND',
      'NAME',
      'LEVEL',
      'ENV',
      db.name,
      'read-only',
      bucket.name,
      app.name,
      'admin',
    ]) {
      expect(res.stdout).toContain(word);
    }
    expect(res.stdout).toContain('DATABASE_URL');
    expect(res.stdout).toContain('STORAGE_BUCKET');
  });

  it('--json gives the API answer for the site', async () => {
    const res = await runCli(h, ['connections', '--site', web.slug, '--json']);
    expect(res.code).toBe(0);
    const direct = await as.get(`/api/v1/projects/${projectId}/sites/${web.id}/connections`);
    expect(JSON.parse(res.stdout)).toEqual(direct.body);
  });

  it('without a site lists every connection of the project with its site', async () => {
    const res = await runCli(h, ['connections', '--json']);
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout) as { connections: Connection[] };
    expect(body.connections.map((c) => c.site_slug)).toContain(web.slug);
    const table = await runCli(h, ['connections']);
    expect(table.stdout).toContain('SITE');
  });

  it('a site without connections says so', async () => {
    const empty = await createSite(as, projectId);
    const res = await runCli(h, ['connections', '--site', empty.slug]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('No connections.');
    expect(res.stdout).toContain('Available to connect');
  });
});

describe('tether disconnect', () => {
  it('without a terminal and without --yes refuses with exit 1 and changes nothing', async () => {
    const before = await connectionsOf(web.id);
    const res = await runCli(h, ['disconnect', 'bucket', bucket.name, '--site', web.slug]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--yes');
    expect(await connectionsOf(web.id)).toEqual(before);
  });

  it.skipIf(!HAS_SCRIPT)('on a terminal it asks; answering no changes nothing', async () => {
    const before = await connectionsOf(web.id);
    const res = await runCliInTerminal(h, ['disconnect', 'bucket', bucket.name, '--site', web.slug], 'n\n');
    expect(res.stdout).toContain(`Disconnect bucket ${bucket.name} from site ${web.slug}?`);
    expect(res.stdout).toContain('cancelled; nothing changed');
    expect(res.code).toBe(1);
    expect(await connectionsOf(web.id)).toEqual(before);
  });

  it.skipIf(!HAS_SCRIPT).each([
    ['Ctrl-C', CTRL_C],
    ['Ctrl-D', CTRL_D],
  ])(
    'on a terminal, %s at the question cancels like "no": exit 1, no stack, nothing changed',
    async (_key, keystroke) => {
      const before = await connectionsOf(web.id);
      const res = await runCliInTerminal(
        h,
        ['disconnect', 'bucket', bucket.name, '--site', web.slug],
        keystroke,
        {
          typeAfter: /\[y\/N\] /,
        },
      );
      expect(res.stdout).toContain(`Disconnect bucket ${bucket.name} from site ${web.slug}?`);
      expect(res.stdout).toContain('cancelled; nothing changed');
      expect(res.stdout).not.toMatch(STACK_OR_ABORT);
      expect(res.code).toBe(1);
      expect(await connectionsOf(web.id)).toEqual(before);
    },
  );

  it('an unknown name is exit 1 and changes nothing', async () => {
    const before = await connectionsOf(web.id);
    const res = await runCli(h, ['disconnect', 'bucket', 'no-such-bucket', '--site', web.slug, '--yes']);
    expect(res.code).toBe(1);
    expect(await connectionsOf(web.id)).toEqual(before);
  });

  it('with --yes disconnects', async () => {
    const res = await runCli(h, ['disconnect', 'bucket', bucket.name, '--site', web.slug, '--yes']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Disconnected');
    expect((await connectionsOf(web.id)).some((c) => c.resource_id === bucket.id)).toBe(false);
  });

  it('disconnecting what is not connected is not an error', async () => {
    const res = await runCli(h, ['disconnect', 'bucket', bucket.name, '--site', web.slug, '--yes', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ removed: false });
  });
});
