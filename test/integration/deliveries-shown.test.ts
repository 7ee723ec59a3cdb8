/**
 * Where people look, each patch's state up to `live` and when it went live (docs/contract.md
 * §11, §14): `tether deliveries` in an 80-column terminal, and the console's Delivery tab with a
 * status badge per row, against the local stack: a site whose webhook target (a local receiver)
 * applied its sync.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { metadata, type SeededProject, seedProject } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { type Receiver, startReceiver } from '../helpers/receiver';

const h = cliHomeForFile();
let s: SeededProject;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  s = await seedProject(inject('baseUrl'), 1, {});
  const site = `/api/v1/projects/${s.project.id}/sites/${s.site.id}`;
  expect((await s.as.put(`${site}/env`, { vars: { GREETING: 'hello' } })).status).toBe(200);
  const set = await s.as.put(`${site}/target`, {
    type: 'webhook',
    url: `${receiver.url}/cli-deliveries-${s.site.id}`,
    secret: 'a-webhook-secret-of-length',
  });
  expect(set.status, set.text).toBe(200);
  await eventually(
    async () =>
      (await s.as.get<{ deliveries: Array<{ status: string }> }>(`${site}/deliveries`)).body.deliveries,
    (d) => d[0]?.status === 'live',
    30_000,
    'the sync live',
  );
  signInAs(h, s);
});
afterAll(async () => {
  await receiver?.close();
});

describe('tether deliveries', () => {
  it('shows a delivery live, and when, within 80 columns; --json carries live_at', async () => {
    const res = await runCli(h, ['deliveries'], { env: { COLUMNS: '80' } });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const header = lines.find((l) => l.startsWith('WHEN')) ?? '';
    expect(header).toMatch(/STATUS\s+LIVE\s+/);
    const row = lines.find((l) => /\bsync\b/.test(l)) ?? '';
    // STATUS live, then LIVE: the time it went live (relative).
    expect(row).toMatch(/\blive\s+(just now|\d+ min ago)/);

    const wide = await runCli(h, ['deliveries', '--wide'], { env: { COLUMNS: '80' } });
    const json = await runCli(h, ['deliveries', '--json']);
    const listed = JSON.parse(json.stdout) as {
      deliveries: Array<{ status: string; live_at: string | null }>;
    };
    const liveAt = listed.deliveries[0]?.live_at as string;
    expect(listed.deliveries[0]?.status).toBe('live');
    expect(Date.parse(liveAt)).not.toBeNaN();
    // --wide shows the exact UTC time beside the relative one.
    expect(wide.stdout).toContain(new Date(liveAt).toISOString().replace(/\.\d+Z$/, 'Z'));
  });
});

describe('the Delivery tab', () => {
  it('shows each delivery as a status badge: live in green with when, written but not yet live in blue', async () => {
    // A patch written to a platform whose running app has not taken it yet (a redeploy under way).
    await metadata(
      `insert into deliveries (id, kind, project_id, target_id, reason, set_names, status, seq, attempts, delivered_at)
       values (gen_random_uuid(), 'runtime_patch', $1, $2, 'variables', '["GREETING"]', 'delivered', 99, 1, now())`,
      [s.project.id, s.site.id],
    );
    const session = await api(inject('baseUrl'), s.token).post<{ token: string }>('/api/v1/account/sessions');
    const page = await fetch(
      `${inject('baseUrl')}/console/projects/${s.project.slug}/sites/${s.site.id}/delivery`,
      { headers: { cookie: `tether_session=${session.body.token}` } },
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    const listed = (
      await s.as.get<{ deliveries: Array<{ status: string; live_at: string | null }> }>(
        `/api/v1/projects/${s.project.id}/sites/${s.site.id}/deliveries`,
      )
    ).body.deliveries;
    const live = listed.find((d) => d.status === 'live');
    expect(live?.live_at).toBeTruthy();
    expect(html).toMatch(/<span class="badge" data-tone="ok" title="The running app has it">live<\/span>/);
    expect(html).toContain(`<time datetime="${live?.live_at}"`);
    expect(html).toMatch(
      /<span class="badge" data-tone="info" title="Written to the platform[^"]*">delivered<\/span>/,
    );
  });
});
