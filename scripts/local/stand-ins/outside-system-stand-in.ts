/**
 * What an engine's or kind's outside system runs locally for `npm start` (stand-ins/index.ts):
 * a stand-in started unless the variables already point the system elsewhere, and the variables
 * (its config slice's, functions/kinds/<name>/system.ts) that point the Worker at it.
 */

/** A started stand-in: the variables pointing at it and how to stop it. */
export interface RunningStandIn {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** One outside system's local stand-in. */
export interface OutsideSystemStandIn {
  /** The engine or kind whose system it stands in for (its outside system's name). */
  readonly system: string;
  /** Starts it, keeping its state under `dir`, unless `given` points the system elsewhere (then null). */
  start(dir: string, given: Record<string, string | undefined>): Promise<RunningStandIn | null>;
}
