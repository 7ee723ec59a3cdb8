/**
 * A WebSocket-to-TCP proxy for the Neon driver (like scripts/local/ws-proxy.ts) that counts SQL
 * round trips: every ReadyForQuery ('Z') the server sends after a connection's startup ends
 * one round trip. Only connections to `database` are counted.
 */
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { type RawData, WebSocketServer } from 'ws';

/** A running counting proxy. */
export interface CountingProxy {
  /** Value for NEON_WS_PROXY. */
  url: string;
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

/** Starts the proxy on a free loopback port, forwarding to PostgreSQL on `targetPort`. */
export async function startCountingProxy(targetPort: number, database: string): Promise<CountingProxy> {
  let count = 0;
  const server = createServer((_req, res) => res.writeHead(426).end());
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
