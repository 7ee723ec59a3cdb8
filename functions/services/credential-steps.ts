/**
 * The credential and network side of the minute reconciler, and the queue handlers that do
 * this work. The Worker's `scheduled` runs {@link CREDENTIAL_STEPS} next to the
 * delivery steps; its `queue` dispatches `cleanup-credential` and `switch-credentials` here.
 */
import type { MessageHandler } from '../queues/consumer';
import { replaceMissingBucketKeys } from './bucket-key-repair';
import { resendCredentialCleanups, runCredentialCleanup } from './credential-cleanup';
import { removeOrphans, restoreMissing } from './credential-drift';
import { switchSharedConnections } from './credential-switch';
import { reconcileNetworkPolicies } from './network-policy';
import type { ReconcilerStep } from './reconciler';

/** Reconciler steps of per-connection credentials and network policies. */
export const CREDENTIAL_STEPS: Record<string, ReconcilerStep> = {
  'resend-credential-cleanups': ({ db, queue }) => resendCredentialCleanups(db, queue),
  'remove-orphaned-credentials': ({ db, adapters }) => removeOrphans(db, adapters),
  'restore-missing-credentials': ({ db, config, adapters }) => restoreMissing(db, config, adapters),
  'replace-missing-bucket-keys': ({ db, config, adapters, queue }) =>
    replaceMissingBucketKeys({ db, config, adapters, queue }),
  // A database that was stopped when an app connected now runs: the app gets its own credential.
  'switch-shared-credentials': ({ db, config, adapters, queue }) =>
    switchSharedConnections({ db, config, adapters, queue }, { includeLegacy: false }),
  'network-policies': ({ db, receivers, queue }) => reconcileNetworkPolicies(db, receivers, queue),
};

/** `cleanup-credential`: drop the credential a cleanup row names. */
export const cleanupCredentialHandler: MessageHandler<'cleanup-credential'> = (m, ctx) =>
  runCredentialCleanup(ctx.db, ctx.config, ctx.adapters, m.cleanupId);

/** `switch-credentials`: move the project's shared connections (legacy sites too, unless told not) to their own. */
export const switchCredentialsHandler: MessageHandler<'switch-credentials'> = async (m, ctx) => {
  await switchSharedConnections(
    { db: ctx.db, config: ctx.config, adapters: ctx.adapters, queue: ctx.queue },
    { projectId: m.projectId, includeLegacy: m.includeLegacy ?? true },
  );
};
