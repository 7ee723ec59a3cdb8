/**
 * The two Durable Object classes (OneTimeCodes, RateCounter) running in workerd through
 * Miniflare, bound as wrangler.toml binds them, for tests that call their clients from Node;
 * and the object of a running Worker by name, typed by its class, for tests that call its
 * methods (each call runs inside the object, on its storage and alarm).
 */
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { DurableObjectCodeStore } from '../../functions/adapters/code-store';
import { DurableObjectRateLimiter } from '../../functions/adapters/rate-limiter';
import type { OneTimeCodes } from '../../functions/objects/one-time-codes-object';
import type { RateCounter } from '../../functions/objects/rate-counter';

/** The classes behind the Worker's Durable Object bindings. */
interface Bound {
  ONE_TIME_CODES: OneTimeCodes;
  RATE_COUNTERS: RateCounter;
}

/**
 * `namespace` (Miniflare's proxy of one) with each name's id and each id's stub made once. Through
 * the proxy, `idFromName` and `get` are synchronous calls, each a worker thread's fetch the test's
 * thread blocks on; under load one such call can read another's answer (Miniflare's
 * SynchronousFetcher asserts `message?.id === id`), and every later call of the file then fails.
 * A file that reaches hundreds of objects thousands of times makes one such call per object.
 */
function keptStubs<T extends Rpc.DurableObjectBranded | undefined>(
  namespace: DurableObjectNamespace<T>,
): DurableObjectNamespace<T> {
  const ids = new Map<string, DurableObjectId>();
  const stubs = new Map<DurableObjectId, Map<string, DurableObjectStub<T>>>();
  const idFromName = (name: string) => {
    let id = ids.get(name);
    if (!id) {
      id = namespace.idFromName(name);
      ids.set(name, id);
    }
    return id;
  };
  const get = (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
    const byHint = stubs.get(id) ?? new Map<string, DurableObjectStub<T>>();
    stubs.set(id, byHint);
    const hint = options?.locationHint ?? '';
    let stub = byHint.get(hint);
    if (!stub) {
      stub = options ? namespace.get(id, options) : namespace.get(id);
      byHint.set(hint, stub);
    }
    return stub;
  };
  return new Proxy(namespace, {
    get: (target, prop) =>
      prop === 'idFromName' ? idFromName : prop === 'get' ? get : Reflect.get(target, prop, target),
  });
}

/** Each Worker's namespaces, kept (see {@link keptStubs}). */
const namespacesOf = new WeakMap<Miniflare, Map<string, Promise<DurableObjectNamespace<never>>>>();

/** The object `name` of `binding` in the Worker run by `mf`, its RPC stub typed by the object's class. */
export async function objectOf<B extends keyof Bound>(
  mf: Miniflare,
  binding: B,
  name: string,
): Promise<DurableObjectStub<Bound[B]>> {
  const kept = namespacesOf.get(mf) ?? new Map<string, Promise<DurableObjectNamespace<never>>>();
  namespacesOf.set(mf, kept);
  let ns = kept.get(binding);
  if (!ns) {
    ns = mf
      .getDurableObjectNamespace(binding)
      .then((raw) => keptStubs(raw as unknown as DurableObjectNamespace<never>));
    kept.set(binding, ns);
  }
  const namespace = (await ns) as unknown as DurableObjectNamespace<Bound[B]>;
  return namespace.get(namespace.idFromName(name));
}

const ENTRY = `
export { OneTimeCodes } from './functions/objects/one-time-codes-object';
export { RateCounter } from './functions/objects/rate-counter';
export default { fetch: () => new Response(null, { status: 404 }) };`;

/** The production CodeStore and RateLimiter clients on `namespaces`. */
function clientsOn(namespaces: { ONE_TIME_CODES: unknown; RATE_COUNTERS: unknown }) {
  return {
    codes: new DurableObjectCodeStore(namespaces.ONE_TIME_CODES as DurableObjectNamespace<OneTimeCodes>),
    rates: new DurableObjectRateLimiter(namespaces.RATE_COUNTERS as DurableObjectNamespace<RateCounter>),
  };
}

/**
 * The same clients on the classes run in this Node process (test/node-workers/durable-objects.ts),
 * for the contract both runtimes must keep.
 */
export async function startNodeDurableObjects() {
  const { nodeDurableObjects } = await import('../node-workers/durable-objects');
  const entry = await import('../../functions/index');
  const namespaces = nodeDurableObjects(
    { ONE_TIME_CODES: 'OneTimeCodes', RATE_COUNTERS: 'RateCounter' },
    entry,
  );
  const bound = { ONE_TIME_CODES: namespaces.ONE_TIME_CODES, RATE_COUNTERS: namespaces.RATE_COUNTERS };
  return {
    ...clientsOn(bound),
    namespaces: bound,
    async stop() {
      for (const namespace of Object.values(namespaces)) namespace.stop();
    },
  };
}

/** The production CodeStore and RateLimiter clients on freshly started objects, and their namespaces. */
export async function startDurableObjects() {
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*', 'node:*'],
    logLevel: 'silent',
  });
  const mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]?.text ?? '',
    compatibilityDate: '2026-04-20',
    compatibilityFlags: ['nodejs_compat'],
    durableObjects: {
      ONE_TIME_CODES: { className: 'OneTimeCodes', useSQLite: true },
      RATE_COUNTERS: { className: 'RateCounter', useSQLite: true },
    },
  });
  const codes = keptStubs(
    (await mf.getDurableObjectNamespace('ONE_TIME_CODES')) as unknown as DurableObjectNamespace,
  );
  const rates = keptStubs(
    (await mf.getDurableObjectNamespace('RATE_COUNTERS')) as unknown as DurableObjectNamespace,
  );
  return {
    ...clientsOn({ ONE_TIME_CODES: codes, RATE_COUNTERS: rates }),
    /** The namespaces, to bind into an in-process app (startInProcessApp). */
    namespaces: { ONE_TIME_CODES: codes, RATE_COUNTERS: rates },
    stop: () => mf.dispose(),
  };
}
