/**
 * A proxy for both Neon transports that counts SQL round trips to `database`:
 * - WebSocket-to-TCP (NEON_WS_PROXY): every ReadyForQuery ('Z') the server sends after a
 *   connection's startup ends one round trip;
 * - SQL over HTTP (NEON_HTTP_ENDPOINT): every POST /sql is one round trip; it is forwarded to
 *   the stack's own endpoint.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { type RawData, WebSocketServer } from 'ws';

/** A running counting proxy. */
export interface CountingProxy {
  /** Value for NEON_WS_PROXY. */
  url: string;
  /** Value for NEON_HTTP_ENDPOINT. */
  httpEndpoint: string;
  /** Round trips to `database` since the last reset. */
  count(): number;
  reset(): void;
  stop(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const toBuffer = (d: RawData): Buffer =>
  Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d);

/** Reads the database parameter of a startup message (after the length and protocol words). */
function databaseOf(startup: Buffer): string | undefined {
  const parts = startup.subarray(8).toString('utf8').split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i] === 'database') return parts[i + 1];
  return undefined;
}

/** Forwards one SQL-over-HTTP request to `endpoint`, counting it when it names `database`. */
async function forwardSql(req: IncomingMessage, res: ServerResponse, endpoint: string, counted: () => void) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
  const target = headers['neon-connection-string'] ?? '';
  if (target) counted();
  const upstream = await fetch(endpoint, { method: 'POST', headers, body: Buffer.concat(chunks) });
  const out: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
  });
  res.writeHead(upstream.status, out).end(Buffer.from(await upstream.arrayBuffer()));
}

/**
 * Starts the proxy on a free loopback port, forwarding WebSockets to PostgreSQL on
 * `targetPort` and /sql to `httpEndpoint`.
 */
export async function startCountingProxy(
  targetPort: number,
  database: string,
  httpEndpoint: string,
): Promise<CountingProxy> {
  let count = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/sql')) {
      res.writeHead(426).end();
      return;
    }
    const onDatabase = () => {
      const url = req.headers['neon-connection-string'];
      if (typeof url === 'string' && new URL(url).pathname.slice(1) === database) count++;
    };
    forwardSql(req, res, httpEndpoint, onDatabase).catch(() => res.destroy());
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  const sockets = new Set<Socket>();

  wss.on('connection', (ws) => {
    const tcp = connect({ host: '127.0.0.1', port: targetPort });
    sockets.add(tcp);
    let clientBuf = Buffer.alloc(0);
    let counted: boolean | undefined; // undefined until the startup message is read
    let sslByte = false;
    let serverBuf = Buffer.alloc(0);
    let readies = 0;

    ws.on('message', (data) => {
      const chunk = toBuffer(data);
      if (counted === undefined) {
        clientBuf = Buffer.concat([clientBuf, chunk]);
        while (counted === undefined && clientBuf.length >= 8) {
          const len = clientBuf.readInt32BE(0);
          if (clientBuf.length < len) break;
          if (clientBuf.readInt32BE(4) === SSL_REQUEST) sslByte = true;
          else counted = databaseOf(clientBuf.subarray(0, len)) === database;
          clientBuf = clientBuf.subarray(len);
        }
      }
      tcp.write(chunk);
    });
    tcp.on('data', (chunk: Buffer) => {
      serverBuf = Buffer.concat([serverBuf, chunk]);
      if (sslByte) {
        serverBuf = serverBuf.subarray(1);
        sslByte = false;
      }
      while (serverBuf.length >= 5) {
        const len = serverBuf.readInt32BE(1);
        if (serverBuf.length < len + 1) break;
        if (serverBuf[0] === 0x5a) {
          // The first ReadyForQuery ends the startup, not a query.
          if (readies++ > 0 && counted) count++;
        }
        serverBuf = serverBuf.subarray(len + 1);
      }
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    });
    tcp.on('close', () => {
      sockets.delete(tcp);
      ws.close();
    });
    tcp.on('error', () => ws.close());
    ws.on('close', () => tcp.end());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `127.0.0.1:${address.port}/v1`,
    httpEndpoint: `http://127.0.0.1:${address.port}/sql`,
    count: () => count,
    reset: () => {
      count = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        for (const s of sockets) s.destroy();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
