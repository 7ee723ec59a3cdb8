/** Shapes shared by the benchmark runner, its load-generator child and the scenarios. */
import type { LocalStack } from '../local/stack';
import type { FakeGoogle } from './fake-google';
import type { BenchApi } from './setup-client';
import type { Check, Measurement } from './stats';

/** One HTTP request the load generator sends. */
export interface LoadRequest {
  method: string;
  /** Path and query, appended to {@link LoadSpec.url}. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What the load-generator child process is asked to do (written to a JSON file). */
export interface LoadSpec {
  /** Origin, e.g. `http://127.0.0.1:8799`. */
  url: string;
  connections: number;
  /**
   * `cycle`: every connection sends `requests` round-robin until `durationSec` runs out.
   * `once`: each request is sent exactly once, spread over the connections, in order.
   */
  mode: 'cycle' | 'once';
  requests: LoadRequest[];
  /** Length of a `cycle` run; for `once`, the most it may last (what is left of the list is not sent). */
  durationSec?: number;
  /** Unmeasured run of the same requests first (`cycle` only), to warm the JIT and pools. */
  warmupSec?: number;
  /** Statuses that count as success; anything else counts as an error. */
  expectStatus: number[];
  /** Return every latency sample with the measurement (see stats.combine). */
  keepSamples?: boolean;
  /** Seconds before a request counts as timed out. */
  timeoutSec: number;
}

/** A row of the results table. */
export interface ResultRow {
  scenario: string;
  /** Issue the target comes from. */
  issue: number;
  measurement?: Measurement;
  /** Throughput as a multiple of the floor measured in this run. */
  floorRatio?: number | null;
  checks: Check[];
  /** Why the row has no measurement (`skipped: route missing`, an error) or extra facts. */
  note?: string;
  /** Facts for the JSON file only (counts, wall times, peer numbers). */
  details?: Record<string, unknown>;
}

/** Everything a scenario may use. */
export interface BenchContext {
  stack: LocalStack;
  /** Client authenticated as the bench's account (created with the operator token). */
  api: BenchApi;
  /** Default connections and duration of throughput runs. */
  settings: { connections: number; durationSec: number; warmupSec: number };
  /** Runs load from a separate Node process and returns what it measured. */
  load(
    spec: Omit<LoadSpec, 'url' | 'timeoutSec'> & { url?: string; timeoutSec?: number; peerPid?: number },
  ): Promise<Measurement>;
  /** Sets the wait every SQL-over-HTTP request adds (the distance to the database), in ms. */
  setSqlRtt(ms: number): void;
  /** The added SQL delay of the latency runs (`--rtt`, 20 ms by default). */
  rttMs: number;
  /** The floor of this run (GET /healthz), once measured. */
  floor?: Measurement;
  /** The local stand-in for Google's OpenID endpoints the Worker is pointed at. */
  google: FakeGoogle;
  /** Header naming the client for per-client rate limits (CLIENT_IP_HEADER). */
  clientIpHeader: string;
  /** `METHOD /path` of every route in the OpenAPI document, e.g. `GET /api/v1/projects/{id}/sites`. */
  routes: ReadonlySet<string>;
}

/**
 * A benchmark scenario: `setup` builds its data through the HTTP API, `measure` drives load
 * and returns table rows with their targets.
 */
export interface Scenario<State = unknown> {
  name: string;
  issue: number;
  /** The target in words, shown when the scenario is skipped. */
  target: string;
  /** Management routes it needs, as in the OpenAPI document; missing ones skip it. */
  requires?: string[];
  setup(ctx: BenchContext): Promise<State>;
  measure(ctx: BenchContext, state: State): Promise<ResultRow[]>;
}
