/**
 * Ceilings: the throughput of the least work some scenario's every request must do, measured
 * in the same run through the bench Worker's /__bench/ routes (see bench-entry.ts). A
 * scenario cannot beat its ceiling, so these rows say how far a target is reachable on this
 * machine at all. They carry no target of their own.
 */
import { holds, type Measurement } from '../stats';
import type { BenchContext, LoadRequest, LoadSpec, ResultRow } from '../types';

/** How the exchange, its peer and its ceiling send load: each request once, distinct codes. */
const ONCE_REQUESTS = 20_000;

async function measureCeiling(
  ctx: BenchContext,
  issue: number,
  scenario: string,
  load: Pick<LoadSpec, 'mode' | 'requests'>,
  note: string,
): Promise<ResultRow & { measurement: Measurement }> {
  const measurement = await ctx.load({
    ...load,
    connections: ctx.settings.connections,
    durationSec: ctx.settings.durationSec,
    ...(load.mode === 'cycle' ? { warmupSec: ctx.settings.warmupSec } : {}),
    expectStatus: [200],
  });
  const checks = [holds('no errors', measurement.errors === 0, String(measurement.errors))];
  return { scenario, issue, measurement, checks, note };
}

/** One SQL round trip alone (`select 1` over the HTTP query path): what a read cannot beat. */
export const SQL_CEILING: LoadRequest = { method: 'GET', path: '/__bench/sql' };
export const SQL_CEILING_NAME = 'ceiling: one SQL round trip';
export const SQL_CEILING_NOTE = 'select 1 over the HTTP query path; no caller, no data';

/** The management API's caller lookup (token, membership of `projectId`) alone. */
export async function callerCeiling(ctx: BenchContext, issue: number, projectId: string): Promise<ResultRow> {
  return measureCeiling(
    ctx,
    issue,
    'ceiling: caller lookup only',
    {
      mode: 'cycle',
      requests: [
        {
          method: 'GET',
          path: `/__bench/caller/${projectId}`,
          headers: { authorization: ctx.api.authorization },
        },
      ],
    },
    "the API's caller lookup (token and membership, one statement) and nothing else",
  );
}

/** What an exchange costs before its own work: its one Durable Object call (count and redeem). */
export async function redeemCeiling(ctx: BenchContext, issue: number, peerRps?: number): Promise<ResultRow> {
  const row = await measureCeiling(
    ctx,
    issue,
    "ceiling: the exchange's object call",
    {
      mode: 'once',
      requests: Array.from({ length: ONCE_REQUESTS }, (_, i) => ({
        method: 'POST',
        path: `/__bench/redeem/bench-ceiling?n=${i}`,
      })),
    },
    'rate windows counted and an unknown code redeemed, in one Durable Object call; nothing else',
  );
  if (peerRps === undefined) return row;
  return { ...row, note: `${row.note}; ${(row.measurement.rps / peerRps).toFixed(2)}x the peer` };
}
