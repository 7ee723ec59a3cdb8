/**
 * Messages on the `provisioning` queue. They carry ids only, never secrets: the consumer reads
 * and derives everything it sends when it runs.
 */
export type ProvisioningMessage =
  | { type: 'deliver'; deliveryId: string }
  /** The next step of a delivery written to its platform toward live (a redeploy, Machine restarts). */
  | { type: 'confirm-live'; deliveryId: string }
  | { type: 'cleanup-credential'; cleanupId: string }
  /** The request that recorded the cleanup dropped its credential already: only mark it done. */
  | { type: 'credential-dropped'; cleanupId: string }
  /** `includeLegacy` false: only connections waiting for a stopped database (absent: legacy sites too). */
  | { type: 'switch-credentials'; projectId: string; includeLegacy?: boolean }
  /** A slice of a reconciler sweep that did not fit the tick's budget: a few item ids. */
  | { type: 'reconcile-slice'; sweep: string; ids: string[] };
