import { afterEach, expect, it, vi } from 'vitest';
import { OneTimeCodes } from '../../functions/objects/one-time-codes-object';
import { RateCounter } from '../../functions/objects/rate-counter';
import { DurableObject } from './cloudflare-workers';
import { nodeDurableObjects, nodeNamespace } from './durable-objects';

/** What the slow call waits for, outside the object (an await on other I/O). */
let outside: Promise<void> = Promise.resolve();

/** An object of the test's own that shows what the runner does: storage, alarms, call order. */
class Probe extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS log (what TEXT); CREATE TABLE IF NOT EXISTS n (v INTEGER)',
    );
  }
  async slowIncrement(): Promise<number> {
    const v = this.ctx.storage.sql.exec<{ v: number }>('SELECT COUNT(*) AS v FROM n').one().v;
    await outside;
    this.ctx.storage.sql.exec('INSERT INTO n (v) VALUES (?)', v + 1);
    return v + 1;
  }
  async wakeAt(at: number): Promise<void> {
    await this.ctx.storage.setAlarm(at);
  }
  async alarm(): Promise<void> {
    this.ctx.storage.sql.exec("INSERT INTO log (what) VALUES ('alarm')");
  }
  log(): string[] {
    return this.ctx.storage.sql
      .exec<{ what: string }>('SELECT what FROM log')
      .toArray()
      .map((r) => r.what);
  }
  written(): number {
    return this.ctx.storage.sql.exec('DELETE FROM n').rowsWritten;
  }
  echo(value: { list: number[] }): { list: number[] } {
    value.list.push(1);
    return value;
  }
}

/** A stub as a caller sees it: every method answers a promise. */
type Stub<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

const stopping: Array<{ stop(): void }> = [];
/** The Probe object named `name`, on a namespace stopped after the test. */
const probe = (name: string): Stub<Probe> => {
  const ns = nodeNamespace(Probe);
  stopping.push(ns);
  return ns.get(ns.idFromName(name)) as unknown as Stub<Probe>;
};
afterEach(() => {
  for (const ns of stopping.splice(0)) ns.stop();
  vi.useRealTimers();
});

it('runs the real RateCounter: of five concurrent takes against a limit of three, exactly three pass', async () => {
  const { RATE_COUNTERS } = nodeDurableObjects({ RATE_COUNTERS: 'RateCounter' }, { RateCounter });
  if (!RATE_COUNTERS) throw new Error('no RATE_COUNTERS namespace');
  stopping.push(RATE_COUNTERS);
  const ns = RATE_COUNTERS as unknown as DurableObjectNamespace<RateCounter>;
  const stub = ns.get(ns.idFromName('scope'));
  const decisions = await Promise.all(
    Array.from({ length: 5 }, () => stub.take([{ key: 'k', limit: 3 }], 60_000)),
  );
  expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
  // Another name is another object, with counters of its own.
  const other = await ns.get(ns.idFromName('other')).take([{ key: 'k', limit: 3 }], 60_000);
  expect(other.allowed).toBe(true);
});

it('runs the real OneTimeCodes: of concurrent redemptions of one code exactly one gets its value', async () => {
  const ns = nodeNamespace(OneTimeCodes) as unknown as DurableObjectNamespace<OneTimeCodes>;
  stopping.push(ns as unknown as { stop(): void });
  const stub = ns.get(ns.idFromName('codes:app'));
  await stub.issue('hash', 'value', 60_000);
  const redeemed = await Promise.all([stub.redeem('hash'), stub.redeem('hash'), stub.redeem('hash')]);
  expect(redeemed.filter((r) => r !== null)).toEqual([{ value: 'value', block: null }]);
});

it('runs one call of an object at a time, in arrival order, even across its awaits', async () => {
  const stub = probe('one');
  let release: (value: undefined) => void = () => undefined;
  outside = new Promise<undefined>((resolve) => {
    release = resolve;
  });
  const first = stub.slowIncrement();
  const second = stub.slowIncrement();
  release(undefined);
  expect(await Promise.all([first, second])).toEqual([1, 2]);
  expect(await stub.written()).toBe(2);
});

it('fires an alarm when it is due, and copies what crosses the call as RPC does', async () => {
  vi.useFakeTimers();
  const stub = probe('alarm');
  await stub.wakeAt(Date.now() + 5_000);
  await vi.advanceTimersByTimeAsync(4_000);
  expect(await stub.log()).toEqual([]);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(await stub.log()).toEqual(['alarm']);
  const sent = { list: [0] };
  expect(await stub.echo(sent)).toEqual({ list: [0, 1] });
  expect(sent).toEqual({ list: [0] });
});

it('names the class the Worker lacks for a bound object', () => {
  expect(() => nodeDurableObjects({ CODES: 'Missing' }, {})).toThrow(
    'CODES: the Worker exports no class Missing',
  );
});
