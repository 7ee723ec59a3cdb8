/**
 * The registry of delivery targets (contract §11): every kind a site's live patches can go to.
 * Generic code (the routes, the consumer) loops over or looks up this registry; nothing else
 * branches on a target's type.
 */
import { cloudflareTarget } from './cloudflare';
import { flyTarget } from './fly';
import type { DeliveryTarget } from './target-adapter';
import { vercelTarget } from './vercel';
import { webhookTarget } from './webhook';

export type {
  DeliverOutcome,
  DeliveryTarget,
  FollowUp,
  PlatformUrls,
  StoredTarget,
  TargetPatch,
} from './target-adapter';
export { FollowUpFailed, TargetFieldRefused, TargetRefused, TargetUnreachable } from './target-adapter';

/** Every delivery target, by type. */
export const TARGETS = [webhookTarget, cloudflareTarget, vercelTarget, flyTarget] as const;

/** A target's type. */
export type TargetType = (typeof TARGETS)[number]['type'];

/** The target of `type`, or undefined for a type no longer known. */
export function targetOf(type: string): DeliveryTarget | undefined {
  return (TARGETS as readonly DeliveryTarget[]).find((t) => t.type === type) as DeliveryTarget | undefined;
}
