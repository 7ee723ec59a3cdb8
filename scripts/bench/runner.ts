/** Runs one scenario: checks its routes, sets it up, measures it, and never lets it crash the run. */
import { RouteMissingError } from './setup-client';
import { holds, ratio } from './stats';
import type { BenchContext, ResultRow, Scenario } from './types';

/** The row reported when a scenario could not run. */
function failedRow(scenario: Scenario, note: string, failed: boolean): ResultRow {
  return {
    scenario: scenario.name,
    issue: scenario.issue,
    checks: failed ? [holds(scenario.target, false, 'not measured')] : [],
    note,
  };
}

/**
 * Runs `scenario` and returns its rows with the floor ratio filled in. A route that is not
 * there yet gives a `skipped: route missing` row; any other failure a failed row naming it.
 */
export async function runScenario(ctx: BenchContext, scenario: Scenario): Promise<ResultRow[]> {
  const missing = (scenario.requires ?? []).filter((r) => !ctx.routes.has(r));
  if (missing.length > 0)
    return [failedRow(scenario, `skipped: route missing (${missing.join(', ')})`, false)];
  try {
    const state = await scenario.setup(ctx);
    const rows = await scenario.measure(ctx, state);
    return rows.map((row) =>
      row.measurement && row.floorRatio === undefined
        ? { ...row, floorRatio: ratio(row.measurement.rps, ctx.floor?.rps) }
        : row,
    );
  } catch (err) {
    if (err instanceof RouteMissingError)
      return [failedRow(scenario, `skipped: route missing (${err.route})`, false)];
    const message = err instanceof Error ? err.message : String(err);
    console.error(`scenario ${scenario.name} failed:`, err);
    return [failedRow(scenario, `error: ${message.split('\n')[0]?.slice(0, 200)}`, true)];
  }
}
