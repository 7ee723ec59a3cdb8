/**
 * The reconciler's side of the scale bench: one cron tick measured apart from the queue
 * consumer, 100 changes made as writes make them, and how long those take to converge.
 *
 * A tick sends the daily sweep's slice to the queue; the consumer takes those messages a
 * second later (`max_batch_timeout`), in its own invocation. So workerd is let go quiet before
 * each tick, the tick's CPU is read across the scheduled handler alone, and what workerd spends
 * after it, until it is quiet again, is the consumer's: reported beside the tick, never inside.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { chunkOf, SWEEPS } from '../../functions/use-cases/credentials/sweep';
import type { LocalStack } from '../local/stack';
import { processCpuMs, settle } from './process-cpu';

/** One tick's cost, and what the queue consumer spent on the messages it sent. */
export interface TickCost {
  wallMs: number;
  cpuMs: number;
  subrequests: number;
  /** workerd CPU after the tick until it was quiet: the consumer working the tick's messages. */
  consumerCpuMs: number;
  /** The tick's own `reconciler.tick` line: its steps' counts (what each acted on or queued). */
  steps: Record<string, number>;
  /** `reconcile-slice` messages the tick sent (its id sweeps' items in messages of {@link chunkOf}). */
  messages: number;
}

/** The slice messages a tick whose steps logged `steps` sent (a lap longer than a tick). */
function sliceMessages(steps: Record<string, number>): number {
  let n = 0;
  for (const [name, sweep] of Object.entries(SWEEPS)) n += Math.ceil((steps[name] ?? 0) / chunkOf(sweep));
  return n;
}

/** A stack under measurement: its workerd's pid and its Worker's log. */
export interface MeasuredStack {
  projects: number;
  stack: LocalStack;
  workerd: number;
  logFile: string;
}

/** Fires the cron once, with workerd quiet before, and reads what the tick logged about itself. */
export async function tick(s: MeasuredStack): Promise<TickCost> {
  await settle(s.workerd);
  const before = processCpuMs(s.workerd);
  const started = performance.now();
  // Miniflare's own call of the handler: its outcome, not an HTTP answer.
  const outcome = await s.stack.worker.runScheduled();
  const wallMs = performance.now() - started;
  const cpuMs = processCpuMs(s.workerd) - before;
  if (outcome.outcome !== 'ok') throw new Error(`the tick failed: ${outcome.outcome}`);
  const consumerCpuMs = await settle(s.workerd);
  const lines = readFileSync(s.logFile, 'utf8').split('\n');
  const line = lines.reverse().find((l) => l.includes('reconciler tick'));
  const json = line?.slice(line.indexOf('{'));
  const logged = json ? (JSON.parse(json) as { subrequests?: number; steps?: Record<string, number> }) : {};
  const steps = logged.steps ?? {};
  return {
    wallMs,
    cpuMs,
    subrequests: logged.subrequests ?? -1,
    consumerCpuMs,
    steps,
    messages: sliceMessages(steps),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The median of each of a tick's costs over several ticks (each median taken on its own). */
export function medianTick(runs: readonly TickCost[]): TickCost {
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    subrequests: Math.max(...runs.map((r) => r.subrequests)),
    consumerCpuMs: median(runs.map((r) => r.consumerCpuMs)),
    steps: runs[runs.length - 1]?.steps ?? {},
    messages: median(runs.map((r) => r.messages)),
  };
}

/** 100 changes as writes make them: one connection removed in each of 100 seeded projects. */
export async function change100(metadataUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: metadataUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ resource_id: string }>(`
      delete from connections c using projects p
       where p.id = c.project_id and p.slug like 'seed-%' and c.kind = 'database'
         and c.site_id = md5('s' || substr(p.slug, 6) || '-2')::uuid
         and substr(p.slug, 6)::int % (select greatest(1, count(*) / 100) from projects where slug like 'seed-%') = 0
       returning c.resource_id`);
    return rows.slice(0, 100).map((r) => r.resource_id);
  } finally {
    await client.end();
  }
}

/** Seconds until no mark is left and each changed database's new policy is delivered (null: not in 120 s). */
export async function converged(s: MeasuredStack, dbs: string[], since: Date): Promise<number | null> {
  const client = new pg.Client({ connectionString: s.stack.metadataUrl });
  await client.connect();
  try {
    for (let t = 0; t <= 120; t += 5) {
      const { rows } = await client.query<{ marks: number; delivered: number }>(
        `select (select count(*)::int from reconcile_marks) as marks,
                (select count(distinct target_id)::int from deliveries where kind = 'network_policy'
                  and status = 'delivered' and target_id = any($1::uuid[]) and created_at >= $2) as delivered`,
        [dbs, since],
      );
      if (rows[0]?.marks === 0 && rows[0]?.delivered === dbs.length)
        return (Date.now() - since.getTime()) / 1000;
      // The minute's cron, fired sooner: each tick takes its bounded batch.
      await s.stack.worker.runScheduled();
      await new Promise((r) => setTimeout(r, 5_000));
    }
    return null;
  } finally {
    await client.end();
  }
}
