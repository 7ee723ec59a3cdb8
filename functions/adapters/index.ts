/** The outside systems the services use; built only by container.ts. */
import type { MongoAdmin } from './mongodb-admin';
import type { PostgresAdmin } from './postgres-admin-interface';
import type { Receiver } from './receiver';
import type { StorageAdmin } from './s3-admin';
import type { PlatformUrls } from './targets';

/** Every outside system the credential work uses; null where the deployment configures none. */
export interface Adapters {
  postgres: PostgresAdmin;
  mongodb: MongoAdmin | null;
  s3: StorageAdmin | null;
}

/** The receivers of signed deliveries; null where the deployment configures none (they stay pending). */
export interface Receivers {
  runtimePatch: Receiver | null;
  networkPolicy: Receiver | null;
  /** The platforms' API base URLs, for sites whose target is a platform (adapters/targets). */
  platforms: PlatformUrls;
  /** The operator's mail sender, sent each invitation (INVITATION_WEBHOOK_URL). */
  invitations: Receiver | null;
}
