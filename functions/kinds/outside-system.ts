/**
 * What an engine or a kind brings of the world outside Tether: its own environment variables (a
 * config slice: a zod schema with their defaults, and the checks across them) and the adapter it
 * builds from them. The registry (registry.ts) merges every registered slice into the one
 * configuration and builds every adapter into the one `Adapters` bag, keyed by the system's name;
 * the plugin reads both back through its own descriptor (`settings`, `adapter`), so no other code
 * names its variables or its adapter.
 */
import { z } from 'zod';
import type { Adapters } from '../adapters';
import type { Config, ConfigSlice } from '../config';

/** How the adapters are built: the reconciler's admin sessions wait less for a lock. */
export interface AdapterOptions {
  lockTimeout?: string;
}

/** One outside system: its config slice and its adapter factory, read back by name. */
export interface OutsideSystem<V = unknown, A = unknown> extends ConfigSlice<V> {
  /** Builds its adapter from its variables and the configuration; null where the deployment configures none. */
  build(vars: V, config: Config, options: AdapterOptions): A;
  /** Its variables as the configuration holds them. */
  settings(config: Config): V;
  /** Its adapter as the registry built it. */
  adapter(adapters: Adapters): A;
}

/** The definition of an outside system: a name, its variables' zod shape, its checks and its factory. */
export interface SystemDefinition<S extends z.ZodRawShape, A> {
  /** The engine's or kind's name: the key of its slice and its adapter. */
  name: string;
  variables: S;
  /** The names of the variables at fault together (half of a pair); none when absent. */
  check?(vars: z.output<z.ZodObject<S>>): string[];
  build(vars: z.output<z.ZodObject<S>>, config: Config, options: AdapterOptions): A;
}

/** An outside system from its definition. */
export function defineSystem<S extends z.ZodRawShape, A>(
  definition: SystemDefinition<S, A>,
): OutsideSystem<z.output<z.ZodObject<S>>, A> {
  const { name } = definition;
  const schema = z.object(definition.variables);
  return {
    name,
    schema,
    check: (vars) => definition.check?.(vars) ?? [],
    build: (vars, config, options) => definition.build(vars, config, options),
    settings(config) {
      if (!(name in config.slices)) throw new Error(`the configuration holds no variables of ${name}`);
      return config.slices[name] as z.output<z.ZodObject<S>>;
    },
    adapter(adapters) {
      if (!adapters.has(name)) throw new Error(`no adapter of ${name} was built`);
      return adapters.get(name) as A;
    },
  };
}
