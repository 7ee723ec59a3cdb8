import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../db/client';
import type { ProvisioningMessage } from '../domain/queue-messages';
import { MAX_RETRIES, MAX_RETRY_DELAY_SECONDS, retryDelaySeconds } from '../lib/backoff';
import { recordDeadLetters } from './consumer';

describe('queue retry backoff', () => {
  it('doubles from 2 s and stops at a minute, so a receiver back from an outage waits at most that', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(retryDelaySeconds)).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    expect(MAX_RETRY_DELAY_SECONDS).toBe(60);
  });

  it("MAX_RETRIES is the provisioning consumer's max_retries in wrangler.toml", () => {
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    const consumer = toml
      .split('[[queues.consumers]]')
      .slice(1)
      .find((part) => /queue = "provisioning"\n/.test(part));
    expect(consumer).toMatch(new RegExp(`\\nmax_retries = ${MAX_RETRIES}\\n`));
  });

  it("a dead letter records the tries it had on the provisioning queue, not the dead-letter queue's own count", async () => {
    let rows: Array<{ attempts: number }> = [];
    let marked: unknown;
    const db = {
      // A dead-lettered live patch is marked `dead` (contract §11).
      update: () => ({
        set: (v: unknown) => ({
          where: async () => {
            marked = v;
          },
        }),
      }),
      insert: () => ({
        values: async (v: typeof rows) => {
          rows = v;
        },
      }),
    } as unknown as Db;
    const acked: string[] = [];
    const message = {
      id: 'm1',
      attempts: 1,
      body: { type: 'deliver', deliveryId: 'd1' } as ProvisioningMessage,
      ack: () => acked.push('m1'),
    };
    await recordDeadLetters(
      { queue: 'provisioning-dlq', messages: [message] } as unknown as MessageBatch<ProvisioningMessage>,
      db,
    );
    expect(rows.map((r) => r.attempts)).toEqual([MAX_RETRIES + 1]);
    expect(acked).toEqual(['m1']);
    expect(marked).toMatchObject({ status: 'dead' });
  });
});
