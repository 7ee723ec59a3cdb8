/** Builds the outside systems' adapters from the configuration, once per request. */
import type { Config } from '../env';
import { AtlasMongoAdmin, type MongoAdmin } from './mongodb-admin';
import { PostgresAdmin } from './postgres-admin';
import { AwsS3Admin, type S3Admin } from './s3-admin';

/** Every outside system the services use; null where the deployment configures none. */
export interface Adapters {
  postgres: PostgresAdmin;
  mongodb: MongoAdmin | null;
  s3: S3Admin | null;
}

/** The real adapters for this configuration. */
export function buildAdapters(config: Config): Adapters {
  return {
    postgres: new PostgresAdmin(config.CUSTOMER_DB_ADMIN_URL, config.NEON_WS_PROXY),
    mongodb:
      config.MONGODB_ADMIN_URL && config.MONGODB_ADMIN_KEY
        ? new AtlasMongoAdmin(config.MONGODB_ADMIN_URL, config.MONGODB_ADMIN_KEY)
        : null,
    s3:
      config.IAM_ACCESS_KEY_ID && config.IAM_SECRET_ACCESS_KEY
        ? new AwsS3Admin({
            accessKeyId: config.IAM_ACCESS_KEY_ID,
            secretAccessKey: config.IAM_SECRET_ACCESS_KEY,
            iamEndpoint: config.IAM_ENDPOINT,
            storageEndpoint: config.STORAGE_ENDPOINT,
          })
        : null,
  };
}
