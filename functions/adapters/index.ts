/** The outside systems the use cases reach; built only by the composition root (container.ts). */
import type { Receiver } from './receiver';
import type { PlatformUrls } from './targets';

/**
 * The adapters of the outside systems the engines and kinds bring (kinds/outside-system.ts), keyed
 * by the engine's or kind's name; each is read back through its system's descriptor
 * (`system.adapter(adapters)`), null where the deployment configures none. Built by the registry.
 */
export type Adapters = ReadonlyMap<string, unknown>;

/** The receivers of signed deliveries; null where the deployment configures none (they stay pending). */
export interface Receivers {
  runtimePatch: Receiver | null;
  networkPolicy: Receiver | null;
  /** The platforms' API base URLs, for sites whose target is a platform (adapters/targets). */
  platforms: PlatformUrls;
  /** The operator's mail sender, sent each invitation (INVITATION_WEBHOOK_URL). */
  invitations: Receiver | null;
}
