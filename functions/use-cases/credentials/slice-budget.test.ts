/**
 * The Worker's subrequest limit (1,000 an invocation) held by construction on the queue: a
 * tick splits each sweep's slice into messages whose items' declared outside calls, with what
 * any message makes besides, stay within a message's share of the queue invocation's budget
 * (500 for a full batch of wrangler.toml's `max_batch_size` messages), and a consumer never
 * checks more items than that share, whatever a message carries. A tick that checks items
 * itself (a lap a tick) takes only what fits its own 500.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adapterOf, adaptersWith } from '../../../test/helpers/adapters';
import { storageAccount } from '../../kinds/bucket/bucket-system';
import {
  MESSAGE_SUBREQUESTS,
  QUEUE_BATCH_MESSAGES,
  QUEUE_SUBREQUESTS,
  type ReconcilerContext,
  SubrequestBudget,
} from '../background/step';
import { chunkOf, runQueuedSlice, SLICE_OVERHEAD, SWEEPS, sweepSteps } from './sweep';

/** Ids in order, as the sweep's page returns them. */
const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

describe('queued sweep slices within the Worker subrequest limit', () => {
  it("wrangler.toml's provisioning batch is the size the budget is shared by, and a full batch stays within half the limit", () => {
    const toml = readFileSync('wrangler.toml', 'utf8');
    const batch = /\[\[queues\.consumers\]\]\s*queue = "provisioning"\s*max_batch_size = (\d+)/.exec(
      toml,
    )?.[1];
    expect(Number(batch)).toBe(QUEUE_BATCH_MESSAGES);
    expect(MESSAGE_SUBREQUESTS * QUEUE_BATCH_MESSAGES).toBeLessThanOrEqual(QUEUE_SUBREQUESTS);
    expect(QUEUE_SUBREQUESTS).toBeLessThanOrEqual(500);
  });

  for (const [name, sweep] of Object.entries(SWEEPS)) {
    it(`${name}: a tick's messages each carry items whose calls fit one message's share`, async () => {
      const sent: string[][] = [];
      let call = 0;
      const ctx = {
        config: { RECONCILER_SWEEP_MINUTES: 1440 },
        cursors: new Map<string, string | null>(),
        budget: new SubrequestBudget(500),
        // The table's estimated rows, the page (a large lap's slice), then no retries due.
        db: {
          execute: async () => {
            call++;
            if (call === 1) return { rows: [{ n: 2_000_000 }] };
            if (call === 2) return { rows: ids(1389).map((id) => ({ id })) };
            return { rows: [] };
          },
        },
        queue: {
          sendBatch: async (messages: Array<{ body: { ids: string[] } }>) => {
            for (const m of messages) sent.push(m.body.ids);
          },
        },
      } as unknown as ReconcilerContext;
      const step = sweepSteps()[name];
      if (!step) throw new Error(`no step ${name}`);
      await step(ctx);
      expect(sent.flat()).toHaveLength(1389);
      for (const message of sent) {
        expect(message.length).toBeLessThanOrEqual(chunkOf(sweep));
        expect(message.length * sweep.cost + SLICE_OVERHEAD).toBeLessThanOrEqual(MESSAGE_SUBREQUESTS);
      }
      // The tick itself: one send a hundred messages, far inside its own budget.
      expect(ctx.budget?.spent).toBeLessThanOrEqual(Math.ceil(sent.length / 100));
    });
  }

  it('with a lap a tick, the tick checks in itself only what fits its 500 calls and queues the rest', async () => {
    const sweep = SWEEPS['sweep:bucket-keys'];
    if (!sweep) throw new Error('no bucket sweep');
    const sent: string[][] = [];
    let call = 0;
    const budget = new SubrequestBudget(500);
    const ctx = {
      config: { RECONCILER_SWEEP_MINUTES: 1 },
      cursors: new Map<string, string | null>(),
      budget,
      // No storage admin: the inline check reads nothing at IAM.
      adapters: adaptersWith(adapterOf(storageAccount, null)),
      db: {
        execute: async () => {
          call++;
          if (call === 1) return { rows: [{ n: 2000 }] };
          if (call === 2) return { rows: ids(2000).map((id) => ({ id })) };
          return { rows: [] };
        },
      },
      queue: {
        sendBatch: async (messages: Array<{ body: { ids: string[] } }>) => {
          for (const m of messages) sent.push(m.body.ids);
        },
      },
    } as unknown as ReconcilerContext;
    await sweepSteps()['sweep:bucket-keys']?.(ctx);
    expect(budget.spent).toBeLessThanOrEqual(500);
    const inline = 2000 - sent.flat().length;
    expect(inline * sweep.cost).toBeLessThanOrEqual(500);
    expect(inline).toBeGreaterThan(0);
    for (const message of sent)
      expect(message.length * sweep.cost + SLICE_OVERHEAD).toBeLessThanOrEqual(MESSAGE_SUBREQUESTS);
  });

  it('a consumer checks no more items than a message may carry and sends the rest back to the queue', async () => {
    let checked = 0;
    const resent: string[][] = [];
    const ctx = {
      queue: {
        send: async (body: { ids: string[] }) => {
          resent.push(body.ids);
        },
      },
    } as unknown as ReconcilerContext;
    const sweep = SWEEPS['sweep:network-policies'];
    if (!sweep) throw new Error('no policies sweep');
    const check = sweep.check;
    sweep.check = async (_ctx, items) => {
      checked = items.length;
      return 0;
    };
    try {
      await runQueuedSlice(ctx, 'sweep:network-policies', ids(500));
    } finally {
      sweep.check = check;
    }
    expect(checked).toBe(chunkOf(sweep));
    expect(resent).toEqual([ids(500).slice(chunkOf(sweep))]);
  });
});
