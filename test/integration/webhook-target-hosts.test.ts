/**
 * A webhook target naming an inward address is refused when it is set (docs/contract.md §9,
 * "Webhook URLs"): 400 naming `url`, nothing stored. No request leaves the machine: every URL
 * here is refused before anything is sent or resolved. The resolver and send-time checks are
 * pinned in functions/adapters/targets/webhook-hosts.test.ts.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiClient } from '../helpers/api';
import { seed } from '../helpers/connections';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

const secret = 'a-webhook-secret-of-some-length';

async function expectRefused(as: ApiClient, site: string, url: string, reason: string) {
  const res = await as.put<{ error: { code: string; field?: string; message: string } }>(`${site}/target`, {
    type: 'webhook',
    url,
    secret,
  });
  expect(res.status, url).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  expect(res.body.error.message).toContain(reason);
  expect((await as.get(`${site}/target`)).body).toEqual({ type: 'default' });
}

describe('webhook URLs are refused when they name an inward address (SSRF)', () => {
  it.each([
    ['https://169.254.169.254/latest/meta-data/iam/security-credentials/', 'a cloud metadata address'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address'],
    ['https://[::ffff:a9fe:a9fe]/latest/meta-data/', 'a cloud metadata address'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'cloud-internal name'],
    ['https://10.0.0.1/hook', 'a private address'],
    ['https://100.64.0.1/hook', 'a carrier-grade NAT address'],
    ['https://[fc00::1]/hook', 'a unique-local address'],
    ['http://192.168.0.1/hook', 'loopback host only'],
  ])('%s is 400 and nothing is stored', async (url, reason) => {
    const s = await seed(inject('baseUrl'), 1);
    await expectRefused(s.as, `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`, url, reason);
  });
});

describe('a deployed service (ALLOW_LOOPBACK_TARGETS unset) refuses loopback webhooks', () => {
  let worker: ExtraWorker;
  beforeAll(async () => {
    worker = await startExtraWorker({ ALLOW_LOOPBACK_TARGETS: 'false' });
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('plain http or https to 127.0.0.1, [::1] or localhost is 400', async () => {
    const s = await seed(worker.baseUrl, 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    await expectRefused(s.as, site, 'http://127.0.0.1:9/patches', 'https only');
    await expectRefused(s.as, site, 'https://127.0.0.1:9/patches', 'a loopback address');
    await expectRefused(s.as, site, 'https://[::1]:9/patches', 'a loopback address');
    await expectRefused(s.as, site, 'https://localhost:9/patches', 'a loopback name');
    // The shared stack allows loopback (as npm start does): the same URL is stored there.
    const shared = await seed(inject('baseUrl'), 1);
    const stored = await shared.as.put(
      `/api/v1/projects/${shared.project.id}/sites/${shared.sites[0]?.id}/target`,
      { type: 'webhook', url: 'http://127.0.0.1:9/patches', secret },
    );
    expect(stored.status).toBe(200);
  });
});
