/**
 * What a reconciler step is and what it works with, below the reconciler and the folders whose
 * steps it runs (credentials/, access/), so neither imports the reconciler itself.
 */
import type { Dependencies } from '../../container';
import type { JobContext } from '../../request-context';

/** The Worker's limit is 1,000 subrequests an invocation; a tick plans for at most half. */
export const TICK_SUBREQUESTS = 500;
/** A queue invocation plans for at most half the limit too, across every message of its batch. */
export const QUEUE_SUBREQUESTS = 500;
/** Messages a queue invocation takes at most (`max_batch_size` in wrangler.toml). */
export const QUEUE_BATCH_MESSAGES = 10;
/** Subrequests one queue message may make, so a full batch stays within {@link QUEUE_SUBREQUESTS}. */
export const MESSAGE_SUBREQUESTS = QUEUE_SUBREQUESTS / QUEUE_BATCH_MESSAGES;

/** Outside calls (subrequests) a tick or a queue message may still make. */
export class SubrequestBudget {
  spent = 0;
  constructor(readonly limit: number) {}
  /** Takes `n` calls if they fit; false (nothing taken) when they do not. */
  take(n: number): boolean {
    if (this.spent + n > this.limit) return false;
    this.spent += n;
    return true;
  }
}

/** What the reconciler works with: the services, a job's context, the sweeps' cursors and the budget. */
export type ReconcilerContext = Dependencies &
  JobContext & {
    cursors?: Map<string, string | null>;
    budget?: SubrequestBudget;
  };

/** What a step did: how many things it acted on, and for a sweep where it stopped (null: lap done). */
export interface StepResult {
  count: number;
  cursor?: string | null;
}

/** A repair step; returns how many things it acted on. */
export type ReconcilerStep = (ctx: ReconcilerContext) => Promise<number | StepResult>;
