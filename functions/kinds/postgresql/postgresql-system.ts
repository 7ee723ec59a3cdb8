/** The customer cluster: its variables (CUSTOMER_DB_*) and its admin adapter. */
import { z } from 'zod';
import { ClusterPostgresAdmin } from '../../adapters/postgres-admin';
import type { PostgresAdmin } from '../../adapters/postgres-admin-interface';
import { defineSystem } from '../outside-system';

const TLS_MODES = new Set(['require', 'verify-ca', 'verify-full']);

/**
 * Whether the cluster wants TLS, read from the admin URL's `sslmode` (a Neon URL carries
 * `sslmode=require`; the local cluster's carries none).
 */
export function clusterWantsTls(adminUrl: string): boolean {
  try {
    const params = new URL(adminUrl).searchParams;
    return TLS_MODES.has(params.get('sslmode') ?? '') || params.get('ssl') === 'true';
  } catch {
    return false;
  }
}

/** The customer cluster PostgreSQL databases live on. */
export const customerCluster = defineSystem({
  name: 'postgresql',
  variables: {
    CUSTOMER_DB_ADMIN_URL: z.string().min(1),
    CUSTOMER_DB_PUBLIC_HOST: z.string().optional(),
    /** host[:port] outside systems reach the cluster at (credentials views); default the public host. */
    CUSTOMER_DB_EXTERNAL_HOST: z.string().optional(),
    /** host[:port] of the connection pooler (Neon: the `-pooler` endpoint); default the external host. */
    CUSTOMER_DB_POOLED_HOST: z.string().optional(),
    /** Sessions each login role Tether makes on the customer cluster may hold at once (CONNECTION LIMIT). */
    CUSTOMER_DB_ROLE_CONNECTION_LIMIT: z.coerce.number().int().min(1).default(20),
    /** Sessions each customer database may hold at once, all its roles together (CONNECTION LIMIT). */
    CUSTOMER_DB_DATABASE_CONNECTION_LIMIT: z.coerce.number().int().min(1).default(60),
    /**
     * temp_file_limit set on every login role (for example `1GB`); needs `GRANT SET ON PARAMETER
     * temp_file_limit` to the admin (README), so unset sets none.
     */
    CUSTOMER_DB_TEMP_FILE_LIMIT: z
      .string()
      .regex(/^\d+\s*(kB|MB|GB|TB)?$/)
      .optional(),
  },
  build: (vars, config, { lockTimeout }): PostgresAdmin =>
    new ClusterPostgresAdmin(
      vars.CUSTOMER_DB_ADMIN_URL,
      config.NEON_WS_PROXY,
      {
        role: vars.CUSTOMER_DB_ROLE_CONNECTION_LIMIT,
        database: vars.CUSTOMER_DB_DATABASE_CONNECTION_LIMIT,
        tempFileLimit: vars.CUSTOMER_DB_TEMP_FILE_LIMIT ?? null,
      },
      lockTimeout,
    ),
});
