/**
 * Pure numbers of the benchmark: latency percentiles, throughput, ratios and the pass/fail
 * checks against a target. No I/O, so test/unit/bench-stats.test.ts can pin every rule.
 */

/** Latency distribution of one run, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** What one load run measured. */
export interface Measurement {
  /** Responses received (any status). */
  requests: number;
  /** From the first request sent to the last response received. */
  wallMs: number;
  /** requests / wall time. */
  rps: number;
  latency: LatencySummary;
  /** Transport errors, timeouts and responses whose status was not expected. */
  errors: number;
  /** Responses per status code, plus `error` and `timeout` counts. */
  statusCounts: Record<string, number>;
  /** Every latency sample, when the run was asked to keep them (to combine runs). */
  samples?: number[];
  /** CPU milliseconds per response of each process group during the run (scripts/bench/cpu.ts). */
  cpu?: Partial<Record<'workerd' | 'postgres' | 'standIns' | 'peer', number>>;
}

/** One target a row is held to. */
export interface Check {
  /** The target as people read it, e.g. `>= 0.40x floor`. */
  target: string;
  pass: boolean;
  /** What was measured against it, e.g. `0.52x`. */
  actual: string;
}

/**
 * Nearest-rank percentile of ascending `sorted` samples: the smallest sample with at least
 * p% of the samples at or below it. NaN for no samples.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** Summarises latency samples (any order) in milliseconds. */
export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((acc, v) => acc + v, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? (sorted[sorted.length - 1] as number) : Number.NaN,
    mean: sorted.length > 0 ? sum / sorted.length : Number.NaN,
  };
}

/** Requests per second for `count` responses over `wallMs`; 0 when no time passed. */
export function throughput(count: number, wallMs: number): number {
  return wallMs > 0 ? (count * 1000) / wallMs : 0;
}

/** Builds a {@link Measurement} from raw samples of one run. */
export function measurement(
  samples: readonly number[],
  wallMs: number,
  errors: number,
  statusCounts: Record<string, number>,
): Measurement {
  const responses = Object.entries(statusCounts)
    .filter(([code]) => /^\d{3}$/.test(code))
    .reduce((acc, [, n]) => acc + n, 0);
  return {
    requests: responses,
    wallMs,
    rps: throughput(responses, wallMs),
    latency: summarizeLatencies(samples),
    errors,
    statusCounts,
  };
}

/**
 * One measurement from several runs of the same requests (for example alternated with
 * another variant so that background work hits both alike): samples pooled, wall times,
 * errors and status counts added, CPU per request averaged over every response. Every run must
 * have kept its samples.
 */
export function combine(runs: readonly Measurement[]): Measurement {
  const samples: number[] = [];
  const statusCounts: Record<string, number> = {};
  for (const run of runs) {
    if (!run.samples) throw new Error('combine needs runs that kept their samples');
    samples.push(...run.samples);
    for (const [code, n] of Object.entries(run.statusCounts))
      statusCounts[code] = (statusCounts[code] ?? 0) + n;
  }
  const wallMs = runs.reduce((acc, r) => acc + r.wallMs, 0);
  const errors = runs.reduce((acc, r) => acc + r.errors, 0);
  const combined = measurement(samples, wallMs, errors, statusCounts);
  const cpu = combineCpu(runs);
  return cpu ? { ...combined, cpu } : combined;
}

/**
 * CPU per request of the runs together (each group's per-request figure weighted by the run's
 * responses), for the groups every run measured; undefined when no run measured any.
 */
function combineCpu(runs: readonly Measurement[]): Measurement['cpu'] {
  const groups = new Set(runs.flatMap((r) => Object.keys(r.cpu ?? {}))) as Set<
    keyof NonNullable<Measurement['cpu']>
  >;
  const out: NonNullable<Measurement['cpu']> = {};
  const total = runs.reduce((acc, r) => acc + r.requests, 0);
  for (const group of groups) {
    if (!(total > 0) || runs.some((r) => r.cpu?.[group] === undefined)) continue;
    out[group] = runs.reduce((acc, r) => acc + (r.cpu?.[group] ?? 0) * r.requests, 0) / total;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** value / base when either is missing or the base is not positive. */
export function ratio(value: number | undefined, base: number | undefined): number | null {
  if (value === undefined || base === undefined || !Number.isFinite(value) || !(base > 0)) return null;
  return value / base;
}

const fmtRatio = (r: number | null): string => (r === null ? 'n/a' : `${r.toFixed(2)}x`);

/** Passes when `r` is known and at least `min`; `of` names the base, e.g. `floor`. */
export function atLeastRatio(r: number | null, min: number, of: string): Check {
  return { target: `>= ${min.toFixed(2)}x ${of}`, pass: r !== null && r >= min, actual: fmtRatio(r) };
}

/** Passes when `r` is known and at most `max`; `of` names the base. */
export function atMostRatio(r: number | null, max: number, of: string): Check {
  return { target: `<= ${max.toFixed(2)}x ${of}`, pass: r !== null && r <= max, actual: fmtRatio(r) };
}

/** A yes/no target, e.g. `no errors` or `100 distinct roles`. */
export function holds(target: string, pass: boolean, actual: string): Check {
  return { target, pass, actual };
}

/** PASS when every check passes, FAIL when one does not, `-` when the row has no target. */
export function verdict(checks: readonly Check[]): 'PASS' | 'FAIL' | '-' {
  if (checks.length === 0) return '-';
  return checks.every((c) => c.pass) ? 'PASS' : 'FAIL';
}
