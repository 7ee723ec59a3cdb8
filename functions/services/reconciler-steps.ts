/**
 * The credential and network side of the minute reconciler: the Worker's `scheduled` runs
 * {@link CREDENTIAL_STEPS} next to the delivery steps.
 */

import { removeExpiredPrincipals } from './access/principal-expiry';
import { replaceMissingBucketKeys } from './credentials/bucket-key-repair';
import { resendCredentialCleanups } from './credentials/cleanup';
import { repairRefusedCredentials } from './credentials/credential-repair';
import { removeOrphans, restoreMissing } from './credentials/drift';
import { rotateUnusedReaders } from './credentials/shared-reader';
import { switchSharedConnections } from './credentials/switch';
import { reconcileNetworkPolicies } from './delivery/network-policy';
import type { ReconcilerStep } from './reconciler';

/** Reconciler steps of per-connection credentials and network policies. */
export const CREDENTIAL_STEPS: Record<string, ReconcilerStep> = {
  'resend-credential-cleanups': ({ db, queue }) => resendCredentialCleanups(db, queue),
  'remove-orphaned-credentials': ({ db, adapters }) => removeOrphans(db, adapters),
  'restore-missing-credentials': ({ db, config, adapters }) => restoreMissing(db, config, adapters),
  // A stored credential the cluster refuses (a rotation that could not be stored) gets its password back.
  'repair-refused-credentials': ({ db, config, adapters }) => repairRefusedCredentials(db, config, adapters),
  'replace-missing-bucket-keys': ({ db, config, adapters, queue }) =>
    replaceMissingBucketKeys({ db, config, adapters, queue }),
  // A database that was stopped when an app connected now runs: the app gets its own credential.
  'switch-shared-credentials': ({ db, config, adapters, queue }) =>
    switchSharedConnections({ db, config, adapters, queue }, { includeLegacy: false }),
  // A shared read-only login no app holds any more (moved to its own, or disconnected) changes password.
  'rotate-unused-shared-readers': ({ db, config, adapters }) => rotateUnusedReaders({ db, config, adapters }),
  // Expired principals are already refused by the systems themselves; now they go for good.
  'remove-expired-principals': ({ db, config, adapters, queue }) =>
    removeExpiredPrincipals(db, config, adapters, queue),
  'network-policies': ({ db, receivers, queue }) => reconcileNetworkPolicies(db, receivers, queue),
};
