/**
 * Retry backoff of the provisioning queue, shared by the consumer (how long a failed message
 * waits) and the reconciler (when a pending delivery counts as stalled rather than backing off).
 */

/**
 * The longest backoff between two tries of one message: a receiver back after an outage gets
 * what is pending within a minute (network policies promise about two minutes).
 */
export const MAX_RETRY_DELAY_SECONDS = 60;

/** Retries of a provisioning message before the dead-letter queue: wrangler.toml's `max_retries`. */
export const MAX_RETRIES = 10;

/** Backoff before the n-th retry: 2, 4, 8 ... seconds, at most a minute. */
export const retryDelaySeconds = (attempts: number): number =>
  Math.min(MAX_RETRY_DELAY_SECONDS, 2 ** Math.max(1, attempts));
