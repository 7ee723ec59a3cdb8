/**
 * Property: after any random sequence of POST, PUT and DELETE, the site holds exactly the last
 * desired set, and each change recorded exactly one patch carrying what moved (and an
 * unchanged set none). "What moved" is computed from the listings the API returned before and
 * after, not from the service's own plan.
 */
import fc from 'fast-check';
import { beforeAll, expect, inject, it } from 'vitest';
import {
  createSite,
  type DeliveryRow,
  deliveriesOf,
  type SeededProject,
  type Service,
  seedProject,
} from '../helpers/connections';

type Kind = 'database' | 'auth_app';
interface Conn {
  kind: Kind;
  resource_id: string;
  level: string;
  env_names: string[];
}
type Cmd =
  | { op: 'post'; i: number; level?: string }
  | { op: 'delete'; i: number }
  | { op: 'put'; items: Array<{ i: number; level?: string }> };

const LEVELS: Record<Kind, [string, string]> = {
  database: ['read-only', 'connect'],
  auth_app: ['client', 'admin'],
};
let s: SeededProject;
let services: Array<Service & { kind: Kind }>;

beforeAll(async () => {
  s = await seedProject(inject('baseUrl'), 2, { databases: 2, authApps: 3 });
  services = [
    ...s.databases.map((d) => ({ ...d, kind: 'database' as const })),
    ...s.authApps.map((a) => ({ ...a, kind: 'auth_app' as const })),
  ];
});

const levelArb = fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  fc
    .record({ op: fc.constant('post' as const), i: fc.integer({ min: 0, max: 4 }), l: levelArb })
    .map(({ i, l }) => ({ op: 'post' as const, i, level: l === undefined ? undefined : String(l) })),
  fc.record({ op: fc.constant('delete' as const), i: fc.integer({ min: 0, max: 4 }) }),
  fc
    .uniqueArray(fc.record({ i: fc.integer({ min: 0, max: 4 }), l: levelArb }), {
      selector: (x) => x.i,
      maxLength: 5,
    })
    .map((xs) => ({
      op: 'put' as const,
      items: xs.map(({ i, l }) => ({ i, level: l === undefined ? undefined : String(l) })),
    })),
);

const levelOf = (kind: Kind, l?: string): string =>
  LEVELS[kind][l === undefined ? (kind === 'auth_app' ? 0 : 1) : Number(l)] as string;

/** Name -> [owner resource, owner level], from a listing. */
function owners(list: Conn[]): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const c of list) for (const n of c.env_names) out.set(n, [c.resource_id, c.level]);
  return out;
}
/** The managed key exists iff a database is connected or an auth app at admin. */
const hasKey = (list: Conn[]) => list.some((c) => c.kind === 'database' || c.level === 'admin');

function expectedPatch(before: Conn[], after: Conn[]): { set: string[]; unset: string[] } {
  const was = owners(before);
  const now = owners(after);
  const set = [...now]
    .filter(([n, [id, level]]) => was.get(n)?.[0] !== id || was.get(n)?.[1] !== level)
    .map(([n]) => n);
  const unset = [...was.keys()].filter((n) => !now.has(n));
  if (hasKey(before) !== hasKey(after)) (hasKey(after) ? set : unset).push('PLATFORM_API_KEY');
  return { set: set.sort(), unset: unset.sort() };
}

it('property: the site holds the last desired set and the deliveries equal what moved', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 6 }), async (cmds) => {
      const site = await createSite(s.as, s.project.id);
      const path = `/api/v1/projects/${s.project.id}/sites/${site.id}/connections`;
      const model = new Map<string, string>();
      let listed: Conn[] = [];
      let seen: DeliveryRow[] = [];
      for (const cmd of cmds) {
        if (cmd.op === 'post') {
          const svc = services[cmd.i] as (typeof services)[number];
          const level = cmd.level === undefined ? undefined : levelOf(svc.kind, cmd.level);
          const res = await s.as.post(path, {
            kind: svc.kind,
            resource_id: svc.id,
            ...(level ? { level } : {}),
          });
          expect(res.status).toBe(201);
          // Without a level, a new connection takes the default and an existing one keeps its level.
          if (level !== undefined || !model.has(svc.id)) model.set(svc.id, levelOf(svc.kind, cmd.level));
        } else if (cmd.op === 'delete') {
          const svc = services[cmd.i] as (typeof services)[number];
          const res = await s.as.delete(`${path}/${svc.kind}/${svc.id}`);
          expect(res.body).toEqual({ removed: model.has(svc.id) });
          model.delete(svc.id);
        } else {
          const body = cmd.items.map(({ i, level }) => {
            const svc = services[i] as (typeof services)[number];
            const l = level === undefined ? undefined : levelOf(svc.kind, level);
            return { kind: svc.kind, resource_id: svc.id, ...(l ? { level: l } : {}) };
          });
          const res = await s.as.put(path, { connections: body });
          expect(res.status).toBe(200);
          model.clear();
          for (const { i, level } of cmd.items) {
            const svc = services[i] as (typeof services)[number];
            model.set(svc.id, levelOf(svc.kind, level));
          }
        }
        const now = (await s.as.get<{ connections: Conn[] }>(path)).body.connections;
        expect(new Map(now.map((c) => [c.resource_id, c.level]))).toEqual(model);
        const deliveries = await deliveriesOf(site.id);
        const fresh = deliveries.slice(seen.length);
        const want = expectedPatch(listed, now);
        if (want.set.length + want.unset.length === 0) expect(fresh).toEqual([]);
        else {
          expect(fresh).toHaveLength(1);
          expect({
            set: [...(fresh[0]?.set_names ?? [])].sort(),
            unset: [...(fresh[0]?.unset_names ?? [])].sort(),
          }).toEqual(want);
        }
        listed = now;
        seen = deliveries;
      }
    }),
    { numRuns: 25, endOnFailure: true },
  );
}, 240_000);
