/**
 * The credential and network side of the minute reconciler: the Worker's `scheduled` runs
 * {@link CREDENTIAL_STEPS} next to the delivery steps. Each reads a bounded batch by an index
 * (what changed, what is pending, what expired); the full checks are sweeps (sweep.ts).
 */

import { activateAcknowledgedPrincipals } from '../access/principal-activation';
import { removeExpiredPrincipals } from '../access/principal-expiry';
import { resendCredentialCleanups } from '../credentials/cleanup';
import { rotateExposedMainPasswords } from '../credentials/exposed-main';
import { retireDueCredentials } from '../credentials/retirements';
import { advanceRotations } from '../credentials/rotations';
import { rotateUnusedReaders } from '../credentials/shared-reader';
import { sweepSteps } from '../credentials/sweep';
import { switchSharedConnections } from '../credentials/switch';
import { reconcilePolicyMarks } from '../delivery/policy-marks';
import { secureMarkedDatabases } from '../resources/database-ownership';
import type { ReconcilerStep } from './tick';

/** Reconciler steps of per-connection credentials and network policies. */
export const CREDENTIAL_STEPS: Record<string, ReconcilerStep> = {
  'resend-credential-cleanups': resendCredentialCleanups,
  // Graceful rotations: live ones drain, drained or past-deadline ones retire their old credential.
  'advance-rotations': (ctx) => advanceRotations(ctx),
  // A service credential's or principal's old secret kept by `?grace_seconds=N` goes at its deadline.
  'retire-old-secrets': retireDueCredentials,
  // A database that was stopped when an app connected now runs: the app gets its own credential.
  'switch-shared-credentials': (ctx) => switchSharedConnections(ctx, { includeLegacy: false }),
  // A shared login no app holds any more (moved to its own, or disconnected) changes password.
  'rotate-unused-shared-readers': rotateUnusedReaders,
  // Once: main passwords handed to apps before shared logins existed change (their apps move first).
  'rotate-exposed-main-passwords': rotateExposedMainPasswords,
  // Once: databases their owner group owned (a tenant could lift the limit) pass to the admin.
  'secure-database-ownership': secureMarkedDatabases,
  // Expired principals are already refused by the systems themselves; now they go for good.
  'remove-expired-principals': removeExpiredPrincipals,
  // Principals whose sources are enforced but that still wait (an activation lost) are let in.
  'activate-acknowledged-principals': activateAcknowledgedPrincipals,
  // The databases whose connections or principals changed since the last tick.
  'network-policies': reconcilePolicyMarks,
};

/** Every credential step with the sweeps, built at each tick (a sweep per engine registered by then). */
export const credentialSteps = (): Record<string, ReconcilerStep> => ({
  ...CREDENTIAL_STEPS,
  ...sweepSteps(),
});
