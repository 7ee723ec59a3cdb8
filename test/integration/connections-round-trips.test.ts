/**
 * SQL round trips per request, counted on the wire: the site listing takes at most 2 whatever
 * its size, and a PUT replace costs the same number whatever the size of the set when one
 * connection changed (and records one delivery).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createSite,
  deliveriesOf,
  type SeededProject,
  type Service,
  seedProject,
} from '../helpers/connections';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-ws-proxy';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

const NO_CONSUMER_CONFIG = fileURLToPath(
  new URL('../fixtures/wrangler-no-queue-consumer.toml', import.meta.url),
);
let proxy: CountingProxy;
let worker: ExtraWorker;
let s: SeededProject;
let apps: Service[];
let dbs: Service[];

beforeAll(async () => {
  const metadataDb = new URL(inject('metadataUrl')).pathname.slice(1);
  const env = inject('workerEnv');
  proxy = await startCountingProxy(inject('pgPort'), metadataDb, env.NEON_HTTP_ENDPOINT as string);
  // No queue consumer: its work on earlier messages would add queries to a request's count.
  worker = await startExtraWorker(
    { NEON_WS_PROXY: proxy.url, NEON_HTTP_ENDPOINT: proxy.httpEndpoint },
    { configPath: NO_CONSUMER_CONFIG },
  );
  s = await seedProject(worker.baseUrl, 2, { databases: 3, authApps: 60 });
  ({ databases: dbs, authApps: apps } = s);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await proxy?.stop();
});

const path = (site: string) => `/api/v1/projects/${s.project.id}/sites/${site}/connections`;
const desired = (n: number, admin = -1) => [
  ...dbs.map((d) => ({ kind: 'database', resource_id: d.id })),
  ...apps
    .slice(0, n)
    .map((a, i) => ({ kind: 'auth_app', resource_id: a.id, level: i === admin ? 'admin' : 'client' })),
];

async function counted<T>(work: () => Promise<T>): Promise<[T, number]> {
  proxy.reset();
  const out = await work();
  return [out, proxy.count()];
}

describe('SQL round trips', () => {
  it('the site listing takes at most 2 round trips, for a few connections or 50 among 63 services', async () => {
    const small = await createSite(s.as, s.project.id);
    await s.as.put(path(small.id), { connections: desired(2) });
    const [a, few] = await counted(() => s.as.get(path(small.id)));
    expect(a.status).toBe(200);
    const big = await createSite(s.as, s.project.id);
    await s.as.put(path(big.id), { connections: desired(47) });
    const [b, many] = await counted(() => s.as.get<{ connections: unknown[] }>(path(big.id)));
    expect(b.body.connections).toHaveLength(50);
    expect(few).toBeGreaterThan(0);
    expect(few).toBeLessThanOrEqual(2);
    expect(many).toBeLessThanOrEqual(2);
  });

  it('PUT replace with one change costs the same round trips at 5 and 50 connections, and one delivery', async () => {
    const cost = async (n: number) => {
      const site = await createSite(s.as, s.project.id);
      await s.as.put(path(site.id), { connections: desired(n) });
      const before = (await deliveriesOf(site.id)).length;
      const [res, trips] = await counted(() => s.as.put(path(site.id), { connections: desired(n, 0) }));
      expect(res.status).toBe(200);
      const after = await deliveriesOf(site.id);
      expect(after.length - before).toBe(1);
      expect(after.at(-1)?.reason).toBe('level');
      return trips;
    };
    const small = await cost(2);
    const large = await cost(47);
    expect(large).toBe(small);
  });

  it('an unchanged PUT writes nothing: only the reads', async () => {
    const site = await createSite(s.as, s.project.id);
    await s.as.put(path(site.id), { connections: desired(10) });
    const [, trips] = await counted(() => s.as.put(path(site.id), { connections: desired(10) }));
    expect(trips).toBeLessThanOrEqual(2);
  });
});
