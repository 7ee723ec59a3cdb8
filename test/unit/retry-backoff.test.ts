import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_SECONDS, retryDelaySeconds } from '../../functions/queues/consumer';

describe('queue retry backoff', () => {
  it('doubles from 2 s and stops at a minute, so a receiver back from an outage waits at most that', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(retryDelaySeconds)).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    expect(MAX_RETRY_DELAY_SECONDS).toBe(60);
  });
});
