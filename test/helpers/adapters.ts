/**
 * Adapters bags for tests that call the credential work directly: the adapters a test hands in,
 * each keyed by the outside system it stands for (kinds/outside-system.ts), as the registry keys
 * the ones it builds. A system left out is absent: reaching it is the test's bug, named.
 */
import type { Adapters } from '../../functions/adapters';
import type { OutsideSystem } from '../../functions/kinds/outside-system';

/** One system's adapter, ready for {@link adaptersWith}. */
export type AdapterEntry = readonly [name: string, adapter: unknown];

/** `adapter` as system `system`'s (null: the deployment configures none). */
export const adapterOf = <A>(system: OutsideSystem<unknown, A>, adapter: A): AdapterEntry => [
  system.name,
  adapter,
];

/** A bag holding these adapters only. */
export const adaptersWith = (...entries: AdapterEntry[]): Adapters => new Map(entries);

/** `adapters` with `entries` put in place of their systems' own. */
export const replacing = (adapters: Adapters, ...entries: AdapterEntry[]): Adapters =>
  new Map([...adapters, ...entries]);
