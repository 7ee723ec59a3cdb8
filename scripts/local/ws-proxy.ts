/**
 * WebSocket-to-TCP proxy that lets the Neon serverless driver (`neonConfig.wsProxy`) reach
 * the local PostgreSQL from inside workerd, plus the local SQL-over-HTTP endpoint
 * (`neonConfig.fetchEndpoint`) on the same port. It only ever connects to one port on loopback.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { SqlOverHttp } from './sql-over-http';

/** Options for {@link startWsProxy}. */
export interface WsProxyOptions {
  /** The only TCP port (on 127.0.0.1) the proxy forwards to: the PostgreSQL port. */
  targetPort: number;
  /** Milliseconds every SQL-over-HTTP request waits before its answer (see sql-over-http.ts). */
  sqlDelayMs?: number;
}

/** A running proxy. */
export interface WsProxyHandle {
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  /** `127.0.0.1:<port>/v1`: the value for the Worker's `NEON_WS_PROXY`. */
  url: string;
  /** `http://127.0.0.1:<port>/sql`: the value for the Worker's `NEON_HTTP_ENDPOINT`. */
  httpEndpoint: string;
  /** Changes the wait every SQL-over-HTTP request adds before its answer. */
  setSqlDelay(ms: number): void;
  /** SQL-over-HTTP requests and WebSocket sessions so far (the bench's round-trip count). */
  roundTrips(): number;
  /** Closes the listener and every open tunnel; safe to call more than once. */
  stop(): Promise<void>;
}

/** Close code for a refused tunnel (RFC 6455 "policy violation"). */
const POLICY_VIOLATION = 1008;
/** Stop reading from PostgreSQL while this much is queued towards the WebSocket. */
const HIGH_WATER = 1 << 20;
const LOW_WATER = 1 << 18;
const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

/** Parses `?address=host:port` and tells whether it names the allowed target. */
function allowedTarget(req: IncomingMessage, targetPort: number): boolean {
  const url = new URL(req.url ?? '/', 'http://proxy');
  if (url.pathname !== '/v1') return false;
  const match = /^([^:]+):(\d{1,5})$/.exec(url.searchParams.get('address') ?? '');
  return match !== null && LOOPBACK.has((match[1] ?? '').toLowerCase()) && Number(match[2]) === targetPort;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Joins one WebSocket to one TCP connection, with backpressure both ways. */
function tunnel(ws: WebSocket, targetPort: number): Socket {
  const tcp = connect({ host: '127.0.0.1', port: targetPort });
  tcp.setNoDelay(true);

  ws.on('message', (data) => {
    if (!tcp.write(toBuffer(data))) ws.pause();
  });
  tcp.on('drain', () => ws.resume());

  const sent = (err?: Error): void => {
    if (err) tcp.destroy();
    else if (tcp.isPaused() && ws.bufferedAmount <= LOW_WATER) tcp.resume();
  };
  tcp.on('data', (chunk: Buffer) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(chunk, { binary: true }, sent);
    if (ws.bufferedAmount > HIGH_WATER) tcp.pause();
  });

  tcp.on('error', () => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1011, 'database connection failed');
  });
  tcp.on('close', () => {
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
  });
  ws.on('close', () => tcp.end());
  ws.on('error', () => tcp.destroy());
  return tcp;
}

/**
 * Starts the proxy on a free port of 127.0.0.1. Clients connect to
 * `ws://127.0.0.1:<port>/v1?address=<host>:<port>`; the tunnel opens only when the address
 * is `127.0.0.1` or `localhost` with `targetPort`, anything else is closed with 1008, so the
 * proxy can never serve as an open relay.
 */
export async function startWsProxy(opts: WsProxyOptions): Promise<WsProxyHandle> {
  const sql = new SqlOverHttp(opts.targetPort, opts.sqlDelayMs ?? 0);
  const server = createServer((req, res) => {
    if (SqlOverHttp.matches(req)) {
      sql.handle(req, res).catch(() => res.destroy());
      return;
    }
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required\n');
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  const tcpSockets = new Set<Socket>();
  let sessions = 0;

  wss.on('connection', (ws, req) => {
    if (!allowedTarget(req, opts.targetPort)) {
      ws.close(POLICY_VIOLATION, 'address not allowed');
      return;
    }
    sessions++;
    const tcp = tunnel(ws, opts.targetPort);
    tcpSockets.add(tcp);
    tcp.on('close', () => tcpSockets.delete(tcp));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('ws proxy has no TCP address');

  let stopped: Promise<void> | undefined;
  return {
    port: address.port,
    url: `127.0.0.1:${address.port}/v1`,
    httpEndpoint: `http://127.0.0.1:${address.port}/sql`,
    setSqlDelay(ms) {
      sql.delayMs = ms;
    },
    roundTrips: () => sql.requests + sessions,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        for (const tcp of tcpSockets) tcp.destroy();
        wss.close();
        void sql.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
