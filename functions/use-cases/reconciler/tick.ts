/**
 * The minute reconciler (the Worker's `scheduled`): repairs what the queue path missed. Its
 * work follows the changes: each step reads a bounded batch (oldest first, by an index), the
 * full checks run as sweeps that take a slice a tick and resume at their cursor, and work past
 * the tick's own budget of outside calls goes to the queue. Each step runs on its own, so one
 * failing step never stops the others; every outcome is written to reconciler_state in one
 * statement and logged as one `reconciler.tick` line (the metric), so `/healthz` detail and the
 * operator's log show a stuck or failing reconciler.
 */
import { log } from '../../lib/logger';
import {
  type ReconcilerContext,
  type ReconcilerStep,
  SubrequestBudget,
  TICK_SUBREQUESTS,
} from '../background/step';
import { stalledConfirmations } from '../delivery/confirm';
import { requeueLost, sendInBatches, stalledDeliveries } from '../delivery/deliveries';
import { readCursors, recordOutcomes, type StepOutcome } from './state';

export {
  type ReconcilerContext,
  type ReconcilerStep,
  type StepResult,
  SubrequestBudget,
  TICK_SUBREQUESTS,
} from '../background/step';

/**
 * Re-enqueues runtime patches still pending whose message is lost (enqueue failed, consumer
 * died with the message acked): never one still in the queue, deferred or in flight
 * (deliveries.ts stalledDeliveries); and the follow-up steps of written ones nobody took.
 */
export const resendRuntimePatches: ReconcilerStep = async (ctx) => {
  const { db, receivers } = ctx;
  // Without a platform-wide receiver, patches of sites without a target of their own are kept
  // pending on purpose; resending them would only churn.
  const [ids, following] = await Promise.all([
    stalledDeliveries(db, 'runtime_patch', 200, !receivers.runtimePatch),
    // Written patches whose redeploy or restart step nobody took.
    stalledConfirmations(db),
  ]);
  await requeueLost(ctx, 'runtime_patch', ids);
  if (following.length > 0)
    await sendInBatches(
      ctx,
      following.map((deliveryId) => ({ type: 'confirm-live', deliveryId })),
    ).catch((err: unknown) => log.error('re-enqueueing delivery follow-ups failed:', err));
  return ids.length + following.length;
};

/** Every step, in order. */
export const RECONCILER_STEPS: Record<string, ReconcilerStep> = {
  'resend-runtime-patches': resendRuntimePatches,
};

/**
 * Runs every step, each isolated; records each outcome and the tick's (cursors included) and
 * logs the tick's metric line. Returns what each step did (-1 for a step that failed).
 */
export async function runReconciler(
  ctx: ReconcilerContext,
  steps: Record<string, ReconcilerStep> = RECONCILER_STEPS,
): Promise<Record<string, number>> {
  const started = Date.now();
  const budget = ctx.budget ?? new SubrequestBudget(TICK_SUBREQUESTS);
  const cursors = await readCursors(ctx.db).catch((err) => {
    log.error('reconciler: reading its cursors failed; sweeps start over:', err);
    return new Map<string, string | null>();
  });
  const run: ReconcilerContext = { ...ctx, cursors, budget };
  const out: Record<string, number> = {};
  const outcomes: StepOutcome[] = [];
  for (const [name, step] of Object.entries(steps)) {
    try {
      const result = await step(run);
      const r = typeof result === 'number' ? { count: result } : result;
      out[name] = r.count;
      outcomes.push({ name, ok: true, count: r.count, cursor: r.cursor });
    } catch (err) {
      log.error(`reconciler step ${name} failed:`, err);
      out[name] = -1;
      outcomes.push({ name, ok: false, count: 0, error: (err as Error).message ?? String(err) });
    }
  }
  const failed = outcomes.filter((o) => !o.ok).map((o) => o.name);
  outcomes.push({
    name: 'tick',
    ok: failed.length === 0,
    count: budget.spent,
    error: failed.join(', ') || undefined,
  });
  try {
    await recordOutcomes(ctx.db, outcomes);
  } catch (err) {
    log.error('reconciler: recording its outcome failed:', err);
  }
  // The metric: one line a tick, which log-based metrics count and chart.
  const line = {
    metric: 'reconciler.tick',
    ms: Date.now() - started,
    subrequests: budget.spent,
    failed,
    steps: out,
  };
  if (failed.length > 0) log.error('reconciler tick failed steps', JSON.stringify(line));
  else log.info('reconciler tick', JSON.stringify(line));
  return out;
}
