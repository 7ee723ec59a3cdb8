/**
 * The provisioning queue's message handlers, one per message type. A `deliver` message is
 * dispatched on its delivery's kind, read once: a runtime patch is sent and then followed by
 * the work a connection change sets off (network policies, legacy credential switches); a
 * network policy is sent.
 */
import { activatePrincipals } from '../use-cases/access/principal-activation';
import { markCleanupDone, runCredentialCleanup } from '../use-cases/credentials/cleanup';
import { advanceDeliveryRotations, advanceSiteRotations } from '../use-cases/credentials/rotations';
import { runQueuedSlice } from '../use-cases/credentials/sweep';
import { switchLegacyAfterChange, switchSharedConnections } from '../use-cases/credentials/switch';
import { confirmDelivery } from '../use-cases/delivery/confirm';
import { readDeliveries } from '../use-cases/delivery/deliveries';
import { deliverNetworkPolicy, policiesAfterChange } from '../use-cases/delivery/network-policy';
import { deliverRuntimePatch } from '../use-cases/delivery/runtime-patch';
import type { ConsumerContext, Handlers } from './consumer';

/** `deliver`: send the delivery the message names, by its kind. */
async function deliver(deliveryId: string, ctx: ConsumerContext): Promise<void> {
  const [delivery] = await readDeliveries(ctx.db, [deliveryId]);
  if (!delivery) return;
  switch (delivery.kind) {
    case 'runtime_patch':
      await deliverRuntimePatch(ctx, delivery);
      // A rotate patch now live lets its rotation drain and retire the old secret at once.
      if (delivery.reason === 'rotate')
        await advanceSiteRotations(ctx, delivery.targetId).catch((err: Error) =>
          ctx.log.error('advancing rotations after their patch failed; the reconciler does it:', err),
        );
      await policiesAfterChange(ctx, delivery);
      // A connection change on a project with legacy sites switches them to their own credentials.
      await switchLegacyAfterChange(ctx, delivery);
      return;
    case 'network_policy':
      // Principals waiting for their sources to be enforced may log in once the policy is acknowledged.
      await deliverNetworkPolicy(ctx, deliveryId, async (databaseId, policy) => {
        await activatePrincipals(ctx, databaseId, policy.principals);
      });
      return;
  }
}

/** Message handlers of the provisioning queue. */
export const PROVISIONING_HANDLERS: Handlers = {
  deliver: (m, ctx) => deliver(m.deliveryId, ctx),
  // One step of a written delivery toward live where the app runs.
  'confirm-live': async (m, ctx) => {
    await confirmDelivery(ctx, m.deliveryId);
    // A rotation waiting for this delivery drains once it is live.
    await advanceDeliveryRotations(ctx, m.deliveryId).catch((err: Error) =>
      ctx.log.error('advancing a rotation after its confirmation failed; the reconciler does it:', err),
    );
  },
  // Drop the credential a cleanup row names.
  'cleanup-credential': (m, ctx) => runCredentialCleanup(ctx, m.cleanupId),
  // A request dropped the credential itself and left the row for the queue to close.
  'credential-dropped': (m, ctx) => markCleanupDone(ctx.db, m.cleanupId),
  // Move the project's shared connections (legacy sites too, unless told not) to their own.
  'switch-credentials': async (m, ctx) => {
    await switchSharedConnections(ctx, { projectId: m.projectId, includeLegacy: m.includeLegacy ?? true });
  },
  // A slice of a reconciler sweep (a few items); its items' failures are recorded and retried by later ticks, not here.
  'reconcile-slice': async (m, ctx) => {
    await runQueuedSlice(ctx, m.sweep, m.ids);
  },
};
