/** The one way to reach Postgres: the Neon serverless driver (WebSocket) under drizzle. */
import { neonConfig, Pool } from '@neondatabase/serverless';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import * as schema from './schema';

/** A drizzle database over the metadata schema. */
export type Db = NeonDatabase<typeof schema>;
/** A transaction handle, usable wherever a Db is. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either a database or a transaction. */
export type DbOrTx = Db | Tx;

/**
 * Points the driver at a local WebSocket-to-TCP proxy when one is configured (local stack and
 * tests); in production it talks to Neon's own endpoint over TLS.
 */
export function configureNeon(wsProxy: string | undefined): void {
  if (!wsProxy) return;
  neonConfig.wsProxy = (host, port) => `${wsProxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** Opens a pool (connections are made lazily); the caller ends it when the request is done. */
export function createPool(url: string, wsProxy: string | undefined): Pool {
  configureNeon(wsProxy);
  return new Pool({ connectionString: url, max: 4 });
}

/** A drizzle handle over a pool. */
export function createDb(pool: Pool): Db {
  return drizzle(pool, { schema });
}
