/**
 * The registry of database engines by name. Generic code asks it for an engine's descriptor and
 * loops over `engines()`; it never branches on an engine's name.
 */
import { type Engine, registerFamily } from '../domain/variables';
import { ApiError } from '../lib/errors';
import type { DatabaseEngine } from './database-engine';
import { mongodb } from './mongodb';
import { postgresql } from './postgresql';

const ENGINES = new Map<Engine, DatabaseEngine>();

/**
 * Makes an engine known: the routes accept its name, derivation and credentials reach it. Returns
 * how to take it back out (a test's own engine, so the next file of its worker never sees it).
 */
export function registerEngine(engine: DatabaseEngine): () => void {
  ENGINES.set(engine.name, engine);
  const unregisterFamily = registerFamily(engine.family);
  return () => {
    if (ENGINES.get(engine.name) !== engine) return;
    ENGINES.delete(engine.name);
    unregisterFamily();
  };
}

registerEngine(postgresql);
registerEngine(mongodb);

/** Every registered engine. */
export const engines = (): DatabaseEngine[] => [...ENGINES.values()];

/** The names of the registered engines. */
export const engineNames = (): Engine[] => [...ENGINES.keys()];

/** Whether `name` names a registered engine. */
export const isEngine = (name: string): boolean => ENGINES.has(name);

/** The descriptor of engine `name`; a stored database names a registered one, so anything else is a bug. */
export function engineOf(name: Engine): DatabaseEngine {
  const engine = ENGINES.get(name);
  if (!engine) throw new ApiError('INTERNAL', `no database engine named ${name}`);
  return engine;
}
