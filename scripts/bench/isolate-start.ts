/**
 * An isolate's start: a fresh workerd (Miniflare) given a Worker's modules, to its first answer.
 * Measured, alternated in one run, for a minimal Hono Worker (GET /healthz), three floors and a ceiling (below),
 * and for the deployable modules twice: its first answer an auth request (the exchange's CORS preflight,
 * which goes through the auth edge's whole pipeline: request scope, the environment checked,
 * CORS) and its first answer a management one (GET /api/v1/projects without a token: the
 * management app loaded, its caller gate's 401). The script has a complete environment (its
 * variables, its Durable Objects, a queue) but no reachable database: neither answer needs one,
 * so what is measured is the script loaded and the path's modules run, not a round trip.
 * Wall time is the median of `runs` starts; the CPU workerd spent from its start to the answer
 * (`/proc`, process-cpu.ts) is reported beside it, the steadier figure on a shared machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { bundleWorker } from '../build-worker';
import { pidsNamed, processCpuMs } from './process-cpu';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Given the same environment as Tether's script (its two Durable Object bindings, a queue), so
// what workerd does to set those up falls on both sides; its classes do nothing.
const MINIMAL = `import { DurableObject } from 'cloudflare:workers';
import { Hono } from 'hono';
export class OneTimeCodes extends DurableObject {}
export class RateCounter extends DurableObject {}
const app = new Hono();
app.get('/healthz', (c) => c.json({ ok: true }));
export default app;
`;

/**
 * A Worker of the same environment that loads the Neon driver under drizzle (`db`), jose and
 * Hono's CORS besides `framework` (its import lines and app class), uses one thing of each so
 * each module runs, and answers the exchange's preflight, or what `route` (a statement on `app`)
 * takes.
 */
const preflightWorker = (
  framework: { imports: string; app: string },
  route: string,
) => `import { DurableObject } from 'cloudflare:workers';
${framework.imports}
import { cors } from 'hono/cors';
import { neon } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import { importJWK } from 'jose';
export class OneTimeCodes extends DurableObject {}
export class RateCounter extends DurableObject {}
const db = drizzle(neon('postgres://bench:bench@127.0.0.1:9/none'));
const app = new ${framework.app}();
app.use('/v1/:app/oauth/*', cors({ origin: '*' }));
${route}
export default app;
`;

/**
 * The floor of any Worker on this stack: the HTTP framework, the Neon driver under drizzle and
 * jose (none of them optional for a sign-in that reads the database and signs tokens).
 */
const STACK = preflightWorker(
  { imports: "import { Hono } from 'hono';", app: 'Hono' },
  "app.post('/v1/:app/oauth/exchange', (c) => c.json({ db: typeof db, jwk: typeof importJWK }, 200));",
);

/**
 * The ceiling of the auth edge's start: the libraries every auth route is built on (the HTTP
 * framework with its OpenAPI validation, zod, the Neon driver under drizzle, jose). What the auth
 * edge costs beyond it is Tether's own modules.
 */
const LIBRARIES = preflightWorker(
  { imports: "import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';", app: 'OpenAPIHono' },
  `app.openapi(
  createRoute({ method: 'post', path: '/v1/{app}/oauth/exchange', request: { params: z.object({ app: z.string() }) }, responses: { 200: { description: 'ok' } } }),
  (c) => c.json({ db: typeof db, jwk: typeof importJWK }, 200),
);`,
);

/**
 * The floor of a management answer that reads its caller, as Tether is built: the libraries the
 * management routes are built on, the environment check of every registered system (the
 * registry, kinds/registry.ts, as each isolate runs it once) and the metadata schema's tables,
 * answering its first request with the caller lookup's query built (not sent) and a 401.
 * `withGroup` also mounts the route group that serves that request (routes/projects.ts), so its
 * routes and schemas are built as a management answer builds its own group's.
 */
const managementFloor = (withGroup: boolean) =>
  preflightWorker(
    {
      imports: `import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { accountTokens } from '${join(ROOT, 'db/schema')}';
import { loadConfig } from '${join(ROOT, 'functions/kinds/registry')}';${
        withGroup ? `\nimport { projectsRoutes } from '${join(ROOT, 'functions/routes/projects')}';` : ''
      }`,
      app: 'OpenAPIHono',
    },
    `app.openapi(
  createRoute({ method: 'get', path: '/api/v1/projects', request: { query: z.object({ limit: z.string().optional() }) }, responses: { 401: { description: 'no caller' } } }),
  (c) => {
    const { DATABASE_URL } = loadConfig(c.env);
    const lookup = db.select().from(accountTokens).where(eq(accountTokens.id, crypto.randomUUID())).toSQL();
    return c.json({ error: { code: 'UNAUTHORIZED', message: DATABASE_URL + lookup.sql + typeof importJWK } }, 401);
  },
);${withGroup ? "\napp.route('/api/v1', projectsRoutes);" : ''}`,
  );

/** What a start asks first, and the Worker's modules (absolute paths in one folder, its main module first). */
export interface Start {
  modules: string[];
  request: { path: string; init?: RequestInit };
}

/** The environment of every start: Tether's complete, pointing at no reachable database. */
const TETHER_ENV = {
  DATABASE_URL: 'postgres://bench:bench@127.0.0.1:9/none',
  CUSTOMER_DB_ADMIN_URL: 'postgres://bench:bench@127.0.0.1:9/none',
  OPERATOR_TOKEN: 'o'.repeat(40),
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  PUBLIC_BASE_URL: 'http://127.0.0.1:8787',
  PUBLIC_AUTH_URL: 'http://127.0.0.1:8787',
};

/** One start's wall time and workerd's CPU until its first answer, in milliseconds. */
export async function startOnce({ modules, request }: Start): Promise<{ wallMs: number; cpuMs: number }> {
  const running = pidsNamed('workerd');
  const started = performance.now();
  const mf = new Miniflare({
    // Module paths are relative to modulesRoot; workerd refuses one that climbs out of it.
    modulesRoot: dirname(modules[0] ?? '.'),
    modules: await Promise.all(
      modules.map(async (path) => ({
        type: 'ESModule' as const,
        path,
        contents: await readFile(path, 'utf8'),
      })),
    ),
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat'],
    port: 0,
    bindings: TETHER_ENV,
    durableObjects: { ONE_TIME_CODES: 'OneTimeCodes', RATE_COUNTERS: 'RateCounter' },
    queueProducers: { PROVISIONING: 'provisioning' },
    // The script's own console is not the bench's output.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.resume();
    },
  });
  try {
    const url = await mf.ready;
    const res = await fetch(new URL(request.path, url), request.init);
    await res.arrayBuffer();
    const wallMs = performance.now() - started;
    let cpuMs = 0;
    for (const pid of pidsNamed('workerd')) if (!running.has(pid)) cpuMs += processCpuMs(pid);
    return { wallMs, cpuMs };
  } finally {
    await mf.dispose();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Median wall and CPU of one kind of start. */
export interface StartTime {
  wallMs: number;
  cpuMs: number;
}

/**
 * The starts of one run: the minimal Worker's, the stack's floor, the libraries' ceiling, the
 * management answer's floors (without and with its route group), the Worker's to an auth and to a
 * management answer.
 */
export interface IsolateStarts {
  minimal: StartTime;
  stack: StartTime;
  libraries: StartTime;
  managementFloor: StartTime;
  managementGroupFloor: StartTime;
  auth: StartTime;
  management: StartTime;
  runs: number;
}

/** The exchange's CORS preflight: answered by the auth edge's pipeline with no database. */
export const AUTH_FIRST_REQUEST = {
  path: '/v1/bench-app/oauth/exchange',
  init: {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  },
};
/** A management route without a token: the management app's caller gate answers 401. */
export const MANAGEMENT_FIRST_REQUEST = { path: '/api/v1/projects' };

type Kind = Exclude<keyof IsolateStarts, 'runs'>;

/** Median starts of `modules` (the deployable ones, main first) and of a minimal Hono Worker, `runs` each, alternated. */
export async function measureIsolateStart(modules: string[], runs = 15): Promise<IsolateStarts> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-bench-isolate-'));
  try {
    // Built as the Worker is (scripts/build-worker.ts: split, zod in English only), so a start
    // differs from the Worker's by what it loads alone.
    const bundle = async (name: string, source: string): Promise<string[]> => {
      const entry = join(dir, `${name}.ts`);
      await writeFile(entry, source);
      const built = await bundleWorker(entry, join(dir, name));
      return built.modules.map((file) => join(built.dir, file));
    };
    const kinds: Record<Kind, Start> = {
      minimal: { modules: await bundle('minimal', MINIMAL), request: { path: '/healthz' } },
      stack: { modules: await bundle('stack', STACK), request: AUTH_FIRST_REQUEST },
      libraries: { modules: await bundle('libraries', LIBRARIES), request: AUTH_FIRST_REQUEST },
      managementFloor: {
        modules: await bundle('management-floor', managementFloor(false)),
        request: MANAGEMENT_FIRST_REQUEST,
      },
      managementGroupFloor: {
        modules: await bundle('management-group-floor', managementFloor(true)),
        request: MANAGEMENT_FIRST_REQUEST,
      },
      auth: { modules, request: AUTH_FIRST_REQUEST },
      management: { modules, request: MANAGEMENT_FIRST_REQUEST },
    };
    const seen: Record<Kind, StartTime[]> = {
      minimal: [],
      stack: [],
      libraries: [],
      managementFloor: [],
      managementGroupFloor: [],
      auth: [],
      management: [],
    };
    // One start of each to warm the disk cache and workerd's binary, not counted.
    for (const kind of Object.values(kinds)) await startOnce(kind);
    for (let i = 0; i < runs; i++) {
      // Alternated, the order turned every run, so the machine's other work falls on all alike.
      const order: Kind[] = [
        'minimal',
        'stack',
        'libraries',
        'managementFloor',
        'managementGroupFloor',
        'auth',
        'management',
      ];
      for (let r = 0; r < i % order.length; r++) order.push(order.shift() as Kind);
      for (const kind of order) seen[kind].push(await startOnce(kinds[kind]));
    }
    const summary = (xs: StartTime[]): StartTime => ({
      wallMs: median(xs.map((x) => x.wallMs)),
      cpuMs: median(xs.map((x) => x.cpuMs)),
    });
    return {
      minimal: summary(seen.minimal),
      stack: summary(seen.stack),
      libraries: summary(seen.libraries),
      managementFloor: summary(seen.managementFloor),
      managementGroupFloor: summary(seen.managementGroupFloor),
      auth: summary(seen.auth),
      management: summary(seen.management),
      runs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
