/**
 * Secrets in URLs and declared clients (docs/contract.md §9 Webhook URLs, §13). Regression
 * (issue 38): a webhook target's URL, query and all, was shown to every read member (GET
 * target, the console's Delivery tab) and stored in Activity, so a receiver token in the query
 * reached people who may not hold it; and Activity's `via`, taken from a header any caller may
 * send, read as a fact.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount } from '../helpers/api';
import { type Seeded, seed } from '../helpers/connections';

const SECRET = 'receiver-token-0f9e8d7c6b5a';
let s: Seeded;
let reader: { id: string; token: string };
const site = () => `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;

beforeAll(async () => {
  s = await seed(inject('baseUrl'), 1);
  reader = await createAccount();
  expect(
    (await s.as.put(`/api/v1/projects/${s.project.id}/members/${reader.id}`, { role: 'read' })).status,
  ).toBe(200);
});

describe("a webhook URL's query", () => {
  it('is never shown back to a read member (API or console) nor recorded in Activity', async () => {
    const url = `http://127.0.0.1:9/hooks/tether?token=${SECRET}&team=a`;
    const set = await s.as.put<{ url: string }>(`${site()}/target`, {
      type: 'webhook',
      url,
      secret: 'a-webhook-secret-of-some-length',
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.url).toBe('http://127.0.0.1:9/hooks/tether?redacted');

    const asReader = api().as(reader.token);
    const read = await asReader.get<{ type: string; url: string }>(`${site()}/target`);
    expect([read.status, read.body.type, read.body.url]).toEqual([
      200,
      'webhook',
      'http://127.0.0.1:9/hooks/tether?redacted',
    ]);
    const listing = await asReader.get(`${site()}/deliveries?limit=50`);
    const activity = await asReader.get(`/api/v1/projects/${s.project.id}/activity?action=target`);
    expect(activity.text).toContain('target.set');
    const session = await api().as(reader.token).post<{ token: string }>('/api/v1/account/sessions');
    const page = await fetch(
      `${inject('baseUrl')}/console/projects/${s.project.slug}/sites/${s.sites[0]?.id}/delivery`,
      { headers: { cookie: `tether_session=${session.body.token}` } },
    );
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('/hooks/tether?redacted');
    for (const shown of [set.text, read.text, listing.text, activity.text, html])
      expect(shown).not.toContain(SECRET);
  });
});

describe("Activity's via", () => {
  it('names the client as declared: a plain API call saying it is the console is recorded as a declaration', async () => {
    const made = await s.as.put(
      `${site()}/env`,
      { vars: { FROM_A_SCRIPT: '1' } },
      { headers: { 'x-tether-client': 'console' } },
    );
    expect(made.status).toBe(200);
    const plain = await s.as.put(`${site()}/env`, { vars: { FROM_A_SCRIPT: '2' } });
    expect(plain.status).toBe(200);
    const events = await s.as.get<{ events: Array<{ via: string; details: Record<string, unknown> }> }>(
      `/api/v1/projects/${s.project.id}/activity?action=env.set`,
    );
    const [newest, declared] = events.body.events;
    expect([declared?.via, declared?.details.via_declared]).toEqual(['console', true]);
    expect([newest?.via, newest?.details.via_declared]).toEqual(['api', undefined]);
  });
});
