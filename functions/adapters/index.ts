/** Builds the outside systems' adapters from the configuration, once per request. */
import type { Config } from '../env';
import { PostgresAdmin } from './postgres-admin';

/** Every outside system the services use. */
export interface Adapters {
  postgres: PostgresAdmin;
}

/** The real adapters for this configuration. */
export function buildAdapters(config: Config): Adapters {
  return { postgres: new PostgresAdmin(config.CUSTOMER_DB_ADMIN_URL, config.NEON_WS_PROXY) };
}
