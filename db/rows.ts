/**
 * The row types of the metadata tables, as drizzle selects them. They live beside the schema so
 * services, adapters and tests share them without importing one another.
 */
import type {
  accounts,
  apiKeys,
  authApps,
  authUsers,
  buckets,
  databases,
  deliveries,
  deploys,
  projects,
  sites,
} from './schema';

/** An account. */
export type AccountRow = typeof accounts.$inferSelect;
/** A project. */
export type ProjectRow = typeof projects.$inferSelect;
/** A site of a project. */
export type SiteRow = typeof sites.$inferSelect;
/** A project API key (a site's managed key has `siteId`). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** A database service. */
export type DatabaseRow = typeof databases.$inferSelect;
/** A storage bucket service. */
export type BucketRow = typeof buckets.$inferSelect;
/** An auth app. */
export type AuthAppRow = typeof authApps.$inferSelect;
/** An end user of an auth app. */
export type AuthUserRow = typeof authUsers.$inferSelect;
/** A live patch or network policy waiting for or past delivery. */
export type DeliveryRow = typeof deliveries.$inferSelect;
/** A recorded deploy. */
export type DeployRow = typeof deploys.$inferSelect;
