/**
 * The Worker's own Durable Object classes (functions/index.ts exports them, wrangler.toml binds
 * them) run in this Node process: each object is one instance of its real class over a real
 * SQLite database (./sql-storage.ts), its calls run one at a time in arrival order (workerd's
 * input gate, at its strictest), arguments and answers are copied as RPC copies them, and its
 * alarm fires on this process's timers. No second implementation of any object's rules.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from 'sql.js';
import { openDatabase, sqlStorage } from './sql-storage';

/** A Durable Object class as workerd constructs it. */
export type ObjectClass = new (ctx: DurableObjectState, env: never) => object;

/** An id of one object of a namespace. */
class ObjectId implements DurableObjectId {
  constructor(
    private readonly hex: string,
    readonly name?: string,
  ) {}
  toString(): string {
    return this.hex;
  }
  equals(other: DurableObjectId): boolean {
    return other.toString() === this.hex;
  }
}

/** The storage of one object: SQL, and the alarm (the key-value API is not offered). */
function storageOf(db: Database, alarm: AlarmSlot): DurableObjectStorage {
  const sql = sqlStorage(db);
  const storage = {
    sql,
    async getAlarm() {
      return alarm.at;
    },
    async setAlarm(at: number | Date) {
      alarm.set(typeof at === 'number' ? at : at.getTime());
    },
    async deleteAlarm() {
      alarm.set(null);
    },
    transactionSync<T>(work: () => T): T {
      db.run('SAVEPOINT node_transaction');
      try {
        const result = work();
        db.run('RELEASE node_transaction');
        return result;
      } catch (err) {
        db.run('ROLLBACK TO node_transaction');
        db.run('RELEASE node_transaction');
        throw err;
      }
    },
    async sync() {},
  };
  return storage as unknown as DurableObjectStorage;
}

/** An object's alarm: when it is due, and the timer that fires it. */
interface AlarmSlot {
  at: number | null;
  set(at: number | null): void;
}

/** Retries of a failing alarm, as workerd's (from 2 s, doubling, six in all). */
const ALARM_RETRIES = 6;

/** One live object: its instance and the queue its calls wait in. */
class LiveObject {
  private gate: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly alarm: AlarmSlot;
  readonly instance: Promise<Record<string, unknown>>;

  constructor(id: ObjectId, cls: ObjectClass, env: unknown) {
    const self = this;
    this.alarm = {
      at: null,
      set(at) {
        this.at = at;
        self.arm(0);
      },
    };
    const waiting: Promise<unknown>[] = [];
    this.instance = openDatabase().then(async (db) => {
      const state = {
        id,
        storage: storageOf(db, this.alarm),
        blockConcurrencyWhile: <T>(work: () => Promise<T>): Promise<T> => {
          const done = work();
          waiting.push(done.catch(() => undefined));
          return done;
        },
        waitUntil: (work: Promise<unknown>) => void work.catch(() => undefined),
        acceptWebSocket() {
          throw new Error('WebSockets are not offered to Durable Objects run in Node');
        },
        getWebSockets: () => [],
      };
      const instance = new cls(state as unknown as DurableObjectState, env as never);
      await Promise.all(waiting);
      return instance as Record<string, unknown>;
    });
    this.gate = this.instance;
  }

  /** Runs `work` on the instance once every call before it has finished. */
  run<T>(work: (instance: Record<string, unknown>) => Promise<T> | T): Promise<T> {
    const result = this.gate.then(
      () => this.instance.then(work),
      () => this.instance.then(work),
    );
    this.gate = result.catch(() => undefined);
    return result;
  }

  /** Sets the timer for the alarm now due (if any); `retry` counts failed runs of it. */
  private arm(retry: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const at = this.alarm.at;
    if (at === null) return;
    const wait = retry > 0 ? 2_000 * 2 ** (retry - 1) : Math.max(0, at - Date.now());
    this.timer = setTimeout(() => void this.fire(at, retry), wait);
    this.timer.unref();
  }

  private async fire(at: number, retry: number): Promise<void> {
    const ran = await this.run(async (instance) => {
      // A call since may have moved or cleared it.
      if (this.alarm.at !== at) return true;
      this.alarm.at = null;
      const alarm = instance.alarm as ((info: AlarmInvocationInfo) => Promise<void>) | undefined;
      try {
        await alarm?.call(instance, { isRetry: retry > 0, retryCount: retry, scheduledTime: at });
        return true;
      } catch (err) {
        console.error('[durable object] alarm failed:', err);
        return false;
      }
    });
    if (ran) return;
    if (retry < ALARM_RETRIES) {
      this.alarm.at ??= at;
      this.arm(retry + 1);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** What RPC carries across: a copy, as workerd's serialization makes. */
const copy = <T>(value: T): T => structuredClone(value);

/** A namespace of `cls` objects, each started on first use, with `env` as their environment. */
export function nodeNamespace(
  cls: ObjectClass,
  env: unknown = {},
): DurableObjectNamespace & { stop(): void } {
  const live = new Map<string, LiveObject>();
  const idFromName = (name: string) =>
    new ObjectId(createHash('sha256').update(`${cls.name}:${name}`).digest('hex'), name);
  const get = (id: DurableObjectId) => {
    const key = id.toString();
    let object = live.get(key);
    if (!object) {
      object = new LiveObject(id as ObjectId, cls, env);
      live.set(key, object);
    }
    const target = object;
    return new Proxy(
      {},
      {
        get(_, method) {
          if (method === 'id') return id;
          if (method === 'name') return id.name;
          // Not a promise: a stub is never awaited as one.
          if (typeof method !== 'string' || method === 'then') return undefined;
          return (...args: unknown[]) =>
            target.run(async (instance) => {
              const fn = instance[method];
              if (typeof fn !== 'function')
                throw new TypeError(`The RPC receiver does not implement "${method}".`);
              return copy(await fn.apply(instance, method === 'fetch' ? args : copy(args)));
            });
        },
      },
    );
  };
  const namespace = {
    idFromName,
    idFromString: (hex: string) => new ObjectId(hex),
    newUniqueId: () => new ObjectId(randomBytes(32).toString('hex')),
    get: (id: DurableObjectId, _options?: unknown) => get(id),
    getByName: (name: string, _options?: unknown) => get(idFromName(name)),
    jurisdiction: () => namespace,
    stop() {
      for (const object of live.values()) object.stop();
      live.clear();
    },
  };
  return namespace as unknown as DurableObjectNamespace & { stop(): void };
}

/**
 * A namespace for each of `bindings` (binding name to class name, as wrangler.toml pairs them),
 * its class taken from `classes` (the Worker's entry module's exports). The objects' environment
 * is the Worker's, as in workerd: `env` (its variables and other bindings) and these namespaces,
 * so one object can call another.
 */
export function nodeDurableObjects(
  bindings: Record<string, string>,
  classes: Record<string, unknown>,
  env: Record<string, unknown> = {},
): Record<string, DurableObjectNamespace & { stop(): void }> {
  const objectEnv: Record<string, unknown> = { ...env };
  const namespaces = Object.fromEntries(
    Object.entries(bindings).map(([binding, className]) => {
      const cls = classes[className];
      if (typeof cls !== 'function') throw new Error(`${binding}: the Worker exports no class ${className}`);
      return [binding, nodeNamespace(cls as ObjectClass, objectEnv)];
    }),
  );
  Object.assign(objectEnv, namespaces);
  return namespaces;
}
