/**
 * GET /projects/:id/sites/:siteId/tunnel/:dbId with `Upgrade: websocket`: a byte tunnel from
 * the caller to a PostgreSQL database the site is connected to (`tether connect --local`).
 * A plain Hono route, since an upgrade has no JSON body to validate; it is documented in the
 * OpenAPI document by hand.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { ErrorSchema as ErrorBody, z } from '../lib/openapi';
import { rowsRead } from '../use-cases/caller/declared-reads';
import { serveTunnel, tunnelQuery, tunnelTarget } from '../use-cases/tunnel';
import { declaredRoutes, declareReads } from './declared-reads';
import { SiteParams } from './site-variables';

const TunnelParams = SiteParams.extend({ dbId: z.string() });

export const tunnelRoutes = declaredRoutes();

/** The site's connection to the database, at write: a tunnel opens a read-write session, so a read-only token may not. */
const tunnelRead = declareReads({ role: 'write', writes: true }, ({ http, path, project }) => ({
  answer: rowsRead(tunnelQuery(http, project, path.siteId ?? '', path.dbId ?? '')),
}));

tunnelRoutes.openAPIRegistry.registerPath({
  method: 'get',
  path: '/projects/{id}/sites/{siteId}/tunnel/{dbId}',
  tags: ['tunnels'],
  summary: 'Open a WebSocket byte tunnel to a PostgreSQL database the site is connected to',
  description:
    'Needs `Upgrade: websocket` and the write role. Binary frames carry the PostgreSQL wire protocol ' +
    'both ways. The first packet must be a start-up for this database (encryption requests are ' +
    'declined with "N"; the WebSocket itself runs over HTTPS); anything else gets a PostgreSQL ' +
    'FATAL error and the socket closes with 1008.',
  security: [{ bearer: [] }],
  request: { params: TunnelParams },
  responses: {
    101: { description: 'switching protocols: the tunnel is open' },
    400: {
      description: 'the database is not PostgreSQL',
      content: { 'application/json': { schema: ErrorBody } },
    },
    401: {
      description: 'no credentials, or unknown, revoked or expired ones',
      content: { 'application/json': { schema: ErrorBody } },
    },
    403: {
      description: 'role below write, or a project API key',
      content: { 'application/json': { schema: ErrorBody } },
    },
    404: { description: 'no such project, site or database, or the site is not connected to it' },
    426: { description: 'the request is not a WebSocket upgrade' },
  },
});

const TUNNEL_PATH = '/projects/:id/sites/:siteId/tunnel/:dbId';
// The reads are the GET's alone: another method on the path is 405 (contract §2), not a lookup.
// (Hono's overloads take a fixed number of handlers; the declaration's are its marker and admission.)
const [declared, admission] = tunnelRead.middleware as [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>];
tunnelRoutes.get(TUNNEL_PATH, declared, admission, async (c) => {
  const target = tunnelTarget(c.get('config'), c.get('ctx').adapters, tunnelRead.of(c).answer);
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    c.header('Upgrade', 'websocket');
    throw new ApiError('UPGRADE_REQUIRED', 'this route opens a WebSocket: send Upgrade: websocket');
  }
  const pair = new WebSocketPair();
  const client = pair[0];
  const server = pair[1];
  server.accept();
  serveTunnel(server, target);
  return new Response(null, { status: 101, webSocket: client });
});
