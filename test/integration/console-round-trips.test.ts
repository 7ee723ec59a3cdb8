/**
 * Every console page is served with at most two sequential metadata round trips,
 * counted on the wire like the API's routes (round-trip-budgets.test.ts): the page list is the
 * console's own GET routes (scripts/bench/console-pages.ts), so a new page is counted as soon
 * as it exists. Each page is read by the project's owner and by a read member (a read member's
 * page leaves out what the role may not see, which must not cost a trip either).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ConsoleIds, consolePagePaths } from '../../scripts/bench/console-pages';
import { api, createAccount, uniqueName } from '../helpers/api';
import { metadata, type SeededProject } from '../helpers/connections';
import { seedConsoleProject } from '../helpers/console';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-ws-proxy';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

const NO_CONSUMER_CONFIG = fileURLToPath(
  new URL('../fixtures/wrangler-no-queue-consumer.toml', import.meta.url),
);

/** The budget of a console page ("at most two metadata round trips"). */
const PAGE_BUDGET = 2;

let proxy: CountingProxy;
let worker: ExtraWorker;
let s: SeededProject;
let ids: ConsoleIds;
const sessions: Record<'owner' | 'read member', string> = { owner: '', 'read member': '' };

/** A dashboard session of the account holding `token`. */
async function sessionOf(token: string): Promise<string> {
  const res = await api(worker.baseUrl, token).post<{ token: string }>('/api/v1/account/sessions');
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

beforeAll(async () => {
  const metadataDb = new URL(inject('metadataUrl')).pathname.slice(1);
  const env = inject('workerEnv');
  // A page reads through several of the API's routes side by side; the held answers keep a busy
  // machine's scheduling from counting those reads one after another.
  proxy = await startCountingProxy(inject('pgPort'), metadataDb, env.NEON_HTTP_ENDPOINT as string, {
    latencyMs: 150,
  });
  // No queue consumer: its work on earlier messages would add trips to a page's count.
  worker = await startExtraWorker(
    { NEON_WS_PROXY: proxy.url, NEON_HTTP_ENDPOINT: proxy.httpEndpoint },
    { configPath: NO_CONSUMER_CONFIG },
  );
  ({ p: s, ids } = await seedConsoleProject(worker.baseUrl));
  const project = s.project.id;
  const site = s.site.id;
  const [database, authApp] = [s.databases[0] as { id: string }, s.authApps[0] as { id: string }];
  // Pages with something on them: a principal, user variables, a deploy and an end user.
  const principal = await s.as.post(`/api/v1/projects/${project}/databases/${database.id}/principals`, {
    name: 'reporting',
    level: 'read-only',
  });
  expect(principal.status, principal.text).toBe(201);
  expect((await s.as.put(`/api/v1/projects/${project}/sites/${site}/env`, { vars: { A: '1' } })).status).toBe(
    200,
  );
  expect((await s.as.post(`/api/v1/projects/${project}/sites/${site}/deploys`, {})).status).toBe(201);
  await metadata(`insert into auth_users (id, auth_app_id, email) values (gen_random_uuid(), $1, $2)`, [
    authApp.id,
    `${uniqueName('user')}@example.test`,
  ]);
  const member = await createAccount(undefined, worker.baseUrl);
  const added = await s.as.put(`/api/v1/projects/${project}/members/${member.id}`, { role: 'read' });
  expect(added.status, added.text).toBe(200);
  sessions.owner = await sessionOf(s.token);
  sessions['read member'] = await sessionOf(member.token);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await proxy?.stop();
});

/** GETs a console page with `session` (none for the login page) and counts its sequential trips. */
async function countedPage(path: string, session: string): Promise<{ status: number; trips: number }> {
  proxy.reset();
  const res = await fetch(new URL(path, worker.baseUrl), {
    headers: { cookie: `tether_session=${session}` },
    redirect: 'manual',
  });
  await res.text();
  return { status: res.status, trips: proxy.sequential() };
}

describe('console pages', () => {
  it('every console page is served with at most two sequential metadata round trips', async () => {
    const measured: string[] = [];
    const over: string[] = [];
    const pages = consolePagePaths(ids);
    // The projects page, a project, its site tabs and every kind of service page at least.
    expect(pages.length).toBeGreaterThanOrEqual(9);
    for (const [who, session] of Object.entries(sessions)) {
      for (const page of pages) {
        const res = await countedPage(page, session);
        // 200, or the site's bare path redirecting to its Connections tab.
        expect([200, 302], `${who} ${page} answered ${res.status}`).toContain(res.status);
        measured.push(`${who} ${page}: ${res.trips}`);
        if (res.trips > PAGE_BUDGET) over.push(`${who} ${page}: ${res.trips}`);
      }
    }
    console.log(`console pages, sequential metadata round trips:\n${measured.join('\n')}`);
    expect(over).toEqual([]);
  }, 120_000);

  it('the count sees a page read: a signed-in page makes at least one trip', async () => {
    // Guards the test above against a proxy that counts nothing.
    const res = await countedPage(`/console/projects/${ids.project}`, sessions.owner);
    expect(res.status).toBe(200);
    expect(res.trips).toBeGreaterThanOrEqual(1);
  });
});
