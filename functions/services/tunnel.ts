/** Where a site's local tunnel to one of its databases may lead (`tether connect --local`). */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { connections, databases } from '../../db/schema';
import type { Adapters } from '../adapters';
import { servePostgresTunnel, type TunnelTarget } from '../adapters/postgres-tunnel';
import type { Config } from '../env';
import { ApiError } from '../lib/errors';

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

/**
 * The target of a tunnel from site `siteId` to database `dbId`: only a live PostgreSQL
 * database of the project that the site is connected to; anything else is refused.
 */
export async function tunnelTarget(
  db: Db,
  config: Config,
  adapters: Adapters,
  projectId: string,
  siteId: string,
  dbId: string,
): Promise<TunnelTarget> {
  const [row] = await db
    .select({ engine: databases.engine, physicalName: databases.physicalName, connectionId: connections.id })
    .from(databases)
    .leftJoin(
      connections,
      and(
        eq(connections.resourceId, databases.id),
        eq(connections.siteId, siteId),
        eq(connections.kind, 'database'),
      ),
    )
    .where(and(eq(databases.id, dbId), eq(databases.projectId, projectId), isNull(databases.deletedAt)))
    .limit(1);
  if (!row) throw new ApiError('NOT_FOUND', 'database not found');
  if (!row.connectionId) throw new ApiError('NOT_FOUND', 'connection of this site to the database not found');
  if (row.engine !== 'postgresql')
    throw new ApiError('BAD_REQUEST', 'tunnels reach PostgreSQL databases only');
  const { host, port } = adapters.postgres.endpoint(config.CUSTOMER_DB_PUBLIC_HOST);
  return {
    host,
    port: Number(port),
    database: row.physicalName,
    tls: clusterWantsTls(config.CUSTOMER_DB_ADMIN_URL),
  };
}

/** Carries the PostgreSQL wire protocol between the accepted WebSocket and the tunnel's target. */
export function serveTunnel(socket: WebSocket, target: TunnelTarget): void {
  servePostgresTunnel(socket, target);
}
