/**
 * A proxy for both Neon transports that counts SQL round trips to `database`:
 * - WebSocket-to-TCP (NEON_WS_PROXY): opening a connection (upgrade, startup, authentication,
 *   up to the first ReadyForQuery) is one round trip, and every later ReadyForQuery ('Z') the
 *   server sends ends one more;
 * - SQL over HTTP (NEON_HTTP_ENDPOINT): every POST /sql (one statement, or one batch) is one
 *   round trip; it is forwarded to the stack's own endpoint.
 * Each round trip is kept as a time interval, so {@link CountingProxy.sequential} can tell how
 * many a request waited for one after another (trips that overlap in time cost one wait).
 * With `latencyMs`, every answer is held that long before the client gets it, as a network
 * would: reads a request sends side by side then overlap even when a busy machine starts them
 * some milliseconds apart, while a read that needs an earlier one's answer still starts after it.
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
  /**
   * Sequential round trips since the last reset: the longest chain of trips each of which
   * started after the one before it ended (trips sent side by side count once).
   */
  sequential(): number;
  reset(): void;
  /** Every distinct statement text sent to `database` (Parse, simple Query, SQL over HTTP) since the last reset. */
  queries(): string[];
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

/** One round trip, from when the client sent it to when the answer was complete. */
interface Trip {
  start: number;
  end: number;
}

/** Length of the longest chain of trips that do not overlap in time (earliest-end greedy). */
export function longestChain(trips: readonly Trip[]): number {
  let chain = 0;
  let freeAt = Number.NEGATIVE_INFINITY;
  for (const t of [...trips].sort((a, b) => a.end - b.end)) {
    if (t.start >= freeAt) {
      chain++;
      freeAt = t.end;
    }
  }
  return chain;
}

/** The statement texts of a client's protocol messages in `buf` (after startup); returns what is left unread. */
function readStatements(buf: Buffer, seen: (query: string) => void): Buffer {
  let rest = buf;
  while (rest.length >= 5) {
    const len = rest.readInt32BE(1);
    if (rest.length < len + 1) break;
    const body = rest.subarray(5, len + 1);
    if (rest[0] === 0x51) seen(body.toString('utf8').replace(/\0$/, ''));
    if (rest[0] === 0x50) seen(body.toString('utf8').split('\0')[1] ?? '');
    rest = rest.subarray(len + 1);
  }
  return rest;
}

/** The statement texts of an SQL-over-HTTP body: one query, or a batch. */
function httpStatements(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      query?: string;
      queries?: Array<{ query: string }>;
    };
    return parsed.queries ? parsed.queries.map((q) => q.query) : parsed.query ? [parsed.query] : [];
  } catch {
    return [];
  }
}

/** Forwards one SQL-over-HTTP request to `endpoint`, counting it when it names `database`. */
async function forwardSql(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: string,
  counted: (statements: string[]) => void,
  latencyMs: number,
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const statements = httpStatements(Buffer.concat(chunks));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
  const upstream = await fetch(endpoint, { method: 'POST', headers, body: Buffer.concat(chunks) });
  const out: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
  });
  const body = Buffer.from(await upstream.arrayBuffer());
  if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
  counted(statements);
  res.writeHead(upstream.status, out).end(body);
}

/**
 * Starts the proxy on a free loopback port, forwarding WebSockets to PostgreSQL on
 * `targetPort` and /sql to `httpEndpoint`, each answer held `latencyMs` (default none).
 */
export async function startCountingProxy(
  targetPort: number,
  database: string,
  httpEndpoint: string,
  { latencyMs = 0 }: { latencyMs?: number } = {},
): Promise<CountingProxy> {
  let trips: Trip[] = [];
  let statements = new Set<string>();
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/sql')) {
      res.writeHead(426).end();
      return;
    }
    const start = performance.now();
    const onDatabase = (sent: string[]) => {
      const url = req.headers['neon-connection-string'];
      if (typeof url === 'string' && new URL(url).pathname.slice(1) === database) {
        trips.push({ start, end: performance.now() });
        for (const q of sent) statements.add(q);
      }
    };
    forwardSql(req, res, httpEndpoint, onDatabase, latencyMs).catch(() => res.destroy());
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  const sockets = new Set<Socket>();

  wss.on('connection', (ws) => {
    const tcp = connect({ host: '127.0.0.1', port: targetPort });
    sockets.add(tcp);
    let clientBuf: Buffer = Buffer.alloc(0);
    let counted: boolean | undefined; // undefined until the startup message is read
    let sslByte = false;
    let serverBuf = Buffer.alloc(0);
    // The open trip: from the upgrade to the first ReadyForQuery, then from the first message
    // the client sends after a ReadyForQuery to the next one.
    let tripStart: number | undefined = performance.now();

    ws.on('message', (data) => {
      const chunk = toBuffer(data);
      tripStart ??= performance.now();
      if (counted === undefined) {
        clientBuf = Buffer.concat([clientBuf, chunk]);
        while (counted === undefined && clientBuf.length >= 8) {
          const len = clientBuf.readInt32BE(0);
          if (clientBuf.length < len) break;
          if (clientBuf.readInt32BE(4) === SSL_REQUEST) sslByte = true;
          else counted = databaseOf(clientBuf.subarray(0, len)) === database;
          clientBuf = clientBuf.subarray(len);
        }
      } else if (counted) {
        clientBuf = Buffer.concat([clientBuf, chunk]);
      }
      if (counted) clientBuf = readStatements(clientBuf, (q) => statements.add(q));
      tcp.write(chunk);
    });
    // Held answers keep their order: timers of one delay fire in the order they were set.
    const answer = (chunk: Buffer) => {
      serverBuf = Buffer.concat([serverBuf, chunk]);
      if (sslByte) {
        serverBuf = serverBuf.subarray(1);
        sslByte = false;
      }
      while (serverBuf.length >= 5) {
        const len = serverBuf.readInt32BE(1);
        if (serverBuf.length < len + 1) break;
        if (serverBuf[0] === 0x5a) {
          if (counted) trips.push({ start: tripStart ?? performance.now(), end: performance.now() });
          tripStart = undefined;
        }
        serverBuf = serverBuf.subarray(len + 1);
      }
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    };
    tcp.on('data', (chunk: Buffer) => {
      if (latencyMs > 0) setTimeout(() => answer(chunk), latencyMs);
      else answer(chunk);
    });
    tcp.on('close', () => {
      sockets.delete(tcp);
      // After the answers still held.
      if (latencyMs > 0) setTimeout(() => ws.close(), latencyMs);
      else ws.close();
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
    count: () => trips.length,
    sequential: () => longestChain(trips),
    reset: () => {
      trips = [];
      statements = new Set();
    },
    queries: () => [...statements].filter((q) => q.trim() !== ''),
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
