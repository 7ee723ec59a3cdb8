/** Renders result rows as a plain-text table for the terminal. */
import { verdict } from './stats';
import type { ResultRow } from './types';

const num = (v: number | undefined, digits: number): string =>
  v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);

/** One line per row: throughput, latency, errors, ratio to the floor, targets and verdict. */
export function renderTable(rows: readonly ResultRow[]): string {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'workerd CPU ms/req',
    'pg ms/req',
    'stand-ins ms/req',
    'peer ms/req',
    'x floor',
    'target (actual)',
    'result',
  ];
  const body = rows.map((r) => {
    const m = r.measurement;
    const targets = r.checks.map((c) => `${c.target} (${c.actual})`).join('; ');
    const result = r.measurement || r.checks.length > 0 ? verdict(r.checks) : (r.note ?? '-');
    return [
      r.scenario,
      num(m?.rps, 0),
      num(m?.latency.p50, 2),
      num(m?.latency.p99, 2),
      m ? String(m.errors) : '-',
      num(m?.cpu?.workerd, 3),
      num(m?.cpu?.postgres, 3),
      num(m?.cpu?.standIns, 3),
      num(m?.cpu?.peer, 3),
      r.floorRatio === undefined || r.floorRatio === null ? '-' : `${r.floorRatio.toFixed(2)}x`,
      targets || '-',
      result,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i >= 1 && i <= 9 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join(' | ');
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  const notes = rows
    .filter((r) => r.note && (r.measurement || r.checks.length > 0))
    .map((r) => `  ${r.scenario}: ${r.note}`);
  return [line(header), rule, ...body.map(line), ...(notes.length > 0 ? ['', 'notes:', ...notes] : [])].join(
    '\n',
  );
}
