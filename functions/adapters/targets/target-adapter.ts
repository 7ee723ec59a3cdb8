/**
 * A delivery target (contract §11): where a site's live patches go, as one adapter per kind of
 * target behind one interface, listed in one registry (index.ts). An adapter turns a patch into
 * its platform's own API calls; every call it makes is idempotent (PUT, upsert, delete if
 * present), so a patch failing part-way is sent again whole.
 */
import type { z } from 'zod';
import type { HostResolver } from '../host-resolver';

/** Which hosts webhook targets may name, and how names are resolved. */
export interface WebhookHostPolicy {
  /** Plain http to loopback, and loopback addresses, allowed (ALLOW_LOOPBACK_TARGETS). */
  allowLoopback: boolean;
  resolver: HostResolver;
}

/**
 * The platforms' API base URLs (CLOUDFLARE_API_URL, VERCEL_API_URL, FLY_API_URL), and which hosts
 * a webhook target may name (ALLOW_LOOPBACK_TARGETS, DNS_RESOLVER_URL).
 */
export interface PlatformUrls {
  cloudflare: string;
  vercel: string;
  fly: string;
  webhookHosts: WebhookHostPolicy;
}

/**
 * The outside calls one patch's `deliver` makes at most, whatever names it carries: a queue
 * message's share of the Worker's subrequests is 50 (use-cases/background/step.ts
 * MESSAGE_SUBREQUESTS), and the rest is the message's own (metadata connections, queue sends, the
 * network policies a connection change sets off). An adapter sends a large patch by its
 * platform's bulk call instead of a call per name (docs/contract.md §14).
 */
export const PATCH_CALLS = 20;

/** One live patch as a target receives it: the values already derived. */
export interface TargetPatch {
  siteId: string;
  projectId: string;
  set: Record<string, string>;
  unset: string[];
  reason: string;
  seq: number;
  /** The patch as the signed webhook body (contract §6), exactly as signed. */
  body: string;
}

/**
 * Work still to do at the platform before a written change is live where the app runs (a
 * redeploy waited to READY, Machines updated one at a time): the step to take next, kept with the
 * delivery (JSON, ids only, never a secret), and how long to wait before taking it.
 */
export interface FollowUp {
  state: unknown;
  delaySeconds: number;
}

/**
 * What a target's `deliver` (or one `confirm` step) came to: `live` when the change is confirmed
 * where the app runs (docs/contract.md §14); otherwise written only, with the step that follows.
 */
export type DeliverOutcome = { live: true } | { live: false; next: FollowUp };

/**
 * A follow-up step failed in a way its state cannot recover from (a redeploy that ended in
 * ERROR): the delivery records `message` and retries with backoff from `restart`.
 */
export class FollowUpFailed extends Error {
  constructor(
    message: string,
    readonly restart: unknown,
  ) {
    super(message);
  }
}

/** The platform refused the target when it was checked (a bad token, a missing script, project or app). */
export class TargetRefused extends Error {}

/** A field of the target names something it may not (a webhook URL's host that is not public): 400 naming it. */
export class TargetFieldRefused extends TargetRefused {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The platform could not be reached, or answered with a failure that may pass (5xx, 429). */
export class TargetUnreachable extends Error {}

/** A stored target as an adapter uses it: its public fields and its one secret. */
export interface StoredTarget<C> {
  config: C;
  secret: string;
}

/** One kind of delivery target. */
export interface DeliveryTarget<I extends { type: string } = { type: string }, C = Record<string, unknown>> {
  readonly type: I['type'];
  /** The PUT body for this kind (a strict object with its `type` literal: one member of the registry's union). */
  readonly input: z.ZodType<I> & z.core.$ZodTypeDiscriminable;
  /** Splits a PUT body into the public fields kept in clear and the one secret kept encrypted. */
  split(input: I): StoredTarget<C>;
  /** What GET answers besides `type`: the public fields and which secret is set. */
  describe(config: C): Record<string, unknown>;
  /** One read call proving the token and the script, project or app; throws TargetRefused or TargetUnreachable. */
  check(urls: PlatformUrls, target: StoredTarget<C>): Promise<void>;
  /** Delivers one patch; throws (anything) unless every call of it succeeded. */
  deliver(urls: PlatformUrls, target: StoredTarget<C>, patch: TargetPatch): Promise<DeliverOutcome>;
  /**
   * Takes one step of a follow-up `deliver` answered (its `state`), a few calls at most and no
   * waiting beyond them; throws to be retried with backoff from the same state (or
   * FollowUpFailed's `restart`). Only targets whose `deliver` answers a follow-up have it.
   */
  confirm?(urls: PlatformUrls, target: StoredTarget<C>, state: unknown): Promise<DeliverOutcome>;
}
