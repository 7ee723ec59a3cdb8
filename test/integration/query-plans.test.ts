/**
 * Queries the planner proves: with a few hundred seeded projects in the metadata database
 * (scripts/local/seed-data.ts) and fresh statistics (ANALYZE), every documented route is
 * called once and the reconciler runs one tick, while a proxy records every statement they
 * send; each is then explained (EXPLAIN (GENERIC_PLAN): the plan for any parameter values) and
 * no plan may read a table of more than 1,000 rows by a sequential scan. So no route or tick
 * grows with the number of projects, only with what it reads.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { removeSeed, seedTenants } from '../../scripts/local/seed-data';
import { customerAdminUrl } from '../helpers/pg-login';
import {
  counted,
  type RoundTripWorld,
  startRoundTripWorld,
  stopRoundTripWorld,
} from '../helpers/round-trip-fixture';
import { documentedRoutes, routeRequest } from '../helpers/route-calls';
import { authRequests } from './round-trip-auth-requests';
import { writeRequests } from './round-trip-writes';

/** Tables at least this large must be read by an index. */
const LARGE = 1000;
const PROJECTS = 400;

const started: Partial<RoundTripWorld> = {};
let w: RoundTripWorld;
const seedTarget = () => ({ metadataUrl: inject('metadataUrl'), superuserUrl: inject('adminUrl') });

beforeAll(async () => {
  await seedTenants({
    ...seedTarget(),
    clusterAdminUrl: customerAdminUrl(),
    encryptionKeys: inject('workerEnv').ENCRYPTION_KEYS as string,
    projects: PROJECTS,
    physical: 0,
  });
  // The slow sweep as deployed (a slice a tick), not everything at once.
  w = await startRoundTripWorld(started, { RECONCILER_SWEEP_MINUTES: '1440' });
}, 600_000);

afterAll(async () => {
  await stopRoundTripWorld(started);
  await removeSeed(seedTarget());
}, 300_000);

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };

/** The relations a plan reads by a sequential scan. */
function seqScans(node: PlanNode, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) out.push(node['Relation Name']);
  for (const child of node.Plans ?? []) seqScans(child, out);
  return out;
}

/** Statements EXPLAIN takes (others, such as BEGIN or SET, have no plan). */
const EXPLAINABLE = /^\s*(\(?\s*select|with|insert|update|delete)\b/i;

describe('query plans on seeded data', () => {
  it('no route and no reconciler tick reads a table above 1,000 rows without an index', async () => {
    const meta = new pg.Client({ connectionString: inject('metadataUrl') });
    await meta.connect();
    try {
      await meta.query('analyze');
      const sizes = await meta.query<{ relname: string; n: number }>(
        `select relname, reltuples::float8 as n from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace`,
      );
      const large = new Set(sizes.rows.filter((r) => r.n > LARGE).map((r) => r.relname));
      expect([...large]).toEqual(expect.arrayContaining(['connections', 'sites', 'deliveries']));

      const made = { ...writeRequests(w), ...authRequests(w) };
      const routeQueries: string[] = [];
      for (const [method, path] of await documentedRoutes(w)) {
        if (path === '/api/v1/openapi.json') continue;
        const request = routeRequest(w, made, method, path);
        if (typeof request === 'string') throw new Error(request);
        const call = await request();
        const res = await counted(w, call);
        expect(res.status, `${method} ${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
        // counted() resets the proxy before each request: take each request's statements.
        routeQueries.push(...w.proxy.queries());
      }
      w.proxy.reset();
      expect((await w.worker.runScheduled()).outcome).toBe('ok');
      const tickQueries = w.proxy.queries();

      const offending: string[] = [];
      let explained = 0;
      for (const [from, queries] of [
        ['route', routeQueries],
        ['reconciler', tickQueries],
      ] as const) {
        for (const q of new Set(queries)) {
          if (!EXPLAINABLE.test(q)) continue;
          const res = await meta.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `explain (generic_plan, format json) ${q}`,
          );
          explained++;
          const plan = res.rows[0]?.['QUERY PLAN'][0]?.Plan;
          const scans = plan ? seqScans(plan).filter((t) => large.has(t)) : [];
          if (scans.length > 0)
            offending.push(
              `${from}: seq scan on ${scans.join(', ')}: ${q.replace(/\s+/g, ' ').slice(0, 400)}`,
            );
        }
      }
      console.log(
        `explained ${explained} statements (${routeQueries.length} from routes, ${tickQueries.length} from a tick)`,
      );
      expect(explained).toBeGreaterThan(50);
      expect(offending).toEqual([]);
    } finally {
      await meta.end();
    }
  }, 600_000);
});
