import { describe, expect, it } from 'vitest';
import {
  atLeastRatio,
  atMostRatio,
  combine,
  holds,
  measurement,
  percentile,
  ratio,
  summarizeLatencies,
  throughput,
  verdict,
} from '../../scripts/bench/stats';

describe('bench percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('p50 and p99 of 1..100 are 50 and 99', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it('rounds the rank up, so p50 of four samples is the second and p99 the last', () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 99)).toBe(40);
    expect(percentile([10, 20, 30, 40], 1)).toBe(10);
  });

  it('is NaN without samples and refuses a percentile outside (0, 100]', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe('bench latency summary', () => {
  it('sorts unsorted samples before taking percentiles', () => {
    const s = summarizeLatencies([5, 1, 4, 2, 3]);
    expect(s).toEqual({ count: 5, p50: 3, p90: 5, p99: 5, max: 5, mean: 3 });
  });

  it('a long tail moves p99 but not p50', () => {
    const samples = [...Array.from({ length: 98 }, () => 2), 100, 200];
    const s = summarizeLatencies(samples);
    expect(s.p50).toBe(2);
    expect(s.p99).toBe(100);
    expect(s.max).toBe(200);
    expect(s.mean).toBeCloseTo((98 * 2 + 300) / 100, 10);
  });
});

describe('bench throughput and measurement', () => {
  it('requests per second from a count and milliseconds', () => {
    expect(throughput(5000, 2000)).toBe(2500);
    expect(throughput(3, 1500)).toBe(2);
    expect(throughput(10, 0)).toBe(0);
  });

  it('counts only numeric statuses as responses and keeps transport errors apart', () => {
    const m = measurement([1, 2, 3, 4], 2000, 3, { '200': 3, '503': 1, error: 2 });
    expect(m.requests).toBe(4);
    expect(m.rps).toBe(2);
    expect(m.errors).toBe(3);
    expect(m.latency.p50).toBe(2);
  });
});

describe('bench ratios and targets', () => {
  it('ratio to a base, null when the base is missing or zero', () => {
    expect(ratio(1700, 4250)).toBeCloseTo(0.4, 10);
    expect(ratio(100, 0)).toBeNull();
    expect(ratio(100, undefined)).toBeNull();
    expect(ratio(undefined, 100)).toBeNull();
    expect(ratio(Number.NaN, 100)).toBeNull();
  });

  it('>= 0.40x floor passes exactly at the boundary and fails just under it', () => {
    expect(atLeastRatio(0.4, 0.4, 'floor')).toEqual({
      target: '>= 0.40x floor',
      pass: true,
      actual: '0.40x',
    });
    expect(atLeastRatio(0.3999, 0.4, 'floor').pass).toBe(false);
    expect(atLeastRatio(null, 0.4, 'floor')).toMatchObject({ pass: false, actual: 'n/a' });
  });

  it('<= 2x latency passes at 2 and fails above', () => {
    expect(atMostRatio(2, 2, 'PUT of 1').pass).toBe(true);
    expect(atMostRatio(2.01, 2, 'PUT of 1').pass).toBe(false);
    expect(atMostRatio(null, 2, 'PUT of 1').pass).toBe(false);
  });

  it('a row passes only when every check passes; no checks means no verdict', () => {
    const ok = holds('no errors', true, '0');
    const bad = holds('100 distinct roles', false, '99');
    expect(verdict([ok, ok])).toBe('PASS');
    expect(verdict([ok, bad])).toBe('FAIL');
    expect(verdict([])).toBe('-');
  });
});

describe('bench combine', () => {
  it('pools samples and adds wall times, errors and status counts of alternated runs', () => {
    const a = { ...measurement([1, 2], 100, 0, { '200': 2 }), samples: [1, 2] };
    const b = { ...measurement([10, 20], 300, 1, { '200': 1, '503': 1 }), samples: [10, 20] };
    const both = combine([a, b]);
    expect(both.requests).toBe(4);
    expect(both.wallMs).toBe(400);
    expect(both.rps).toBe(10);
    expect(both.errors).toBe(1);
    expect(both.statusCounts).toEqual({ '200': 3, '503': 1 });
    expect(both.latency.p50).toBe(2);
    expect(both.latency.max).toBe(20);
  });

  it('averages the CPU per request of alternated runs over all their responses', () => {
    const a = {
      ...measurement([1, 2, 3], 100, 0, { '200': 3 }),
      samples: [1, 2, 3],
      cpu: { workerd: 1, peer: 4 },
    };
    const b = { ...measurement([4], 100, 0, { '200': 1 }), samples: [4], cpu: { workerd: 3 } };
    // workerd: (3 x 1 + 1 x 3) / 4; the peer was measured in one run only, so it is left out.
    expect(combine([a, b]).cpu).toEqual({ workerd: 1.5 });
    expect(combine([{ ...a, cpu: undefined }, b]).cpu).toBeUndefined();
  });

  it('refuses runs that did not keep their samples', () => {
    expect(() => combine([measurement([1], 10, 0, { '200': 1 })])).toThrow(/samples/);
  });
});
