/**
 * One tunnelled PostgreSQL connection: bytes from an accepted WebSocket go to a TCP socket
 * on the customer cluster (opened with `cloudflare:sockets`) and back. The client's start-up
 * packet is read first, so nothing reaches the cluster unless it asks for the tunnel's own
 * database.
 */
import {
  ENCRYPTION_DECLINED,
  fatalError,
  MAX_STARTUP_LENGTH,
  readStartupPacket,
  sslRequest,
  startupRefusal,
} from '../domain/pg-startup';

/** Where a tunnel may lead. */
export interface TunnelTarget {
  host: string;
  port: number;
  /** The database's name on the cluster; the only one the start-up packet may ask for. */
  database: string;
  /** Negotiate TLS with the cluster (PostgreSQL's SSLRequest, then STARTTLS). */
  tls: boolean;
}

type Socket = ReturnType<typeof import('cloudflare:sockets').connect>;

const EMPTY = new Uint8Array(0);
/** What a client may send before the cluster connection is up (a start-up packet is far smaller). */
const MAX_BUFFERED = 1024 * 1024;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Opens the TCP connection to the cluster, upgraded to TLS when the target asks for it. */
async function openCluster(target: TunnelTarget): Promise<Socket> {
  // Imported lazily so code that only builds the app (OpenAPI document, Node tests) never needs the module.
  const { connect } = await import('cloudflare:sockets');
  const address = { hostname: target.host, port: target.port };
  if (!target.tls) {
    const socket = connect(address, { allowHalfOpen: false });
    await socket.opened;
    return socket;
  }
  const plain = connect(address, { allowHalfOpen: false, secureTransport: 'starttls' });
  const writer = plain.writable.getWriter();
  await writer.write(sslRequest());
  writer.releaseLock();
  const reader = plain.readable.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  if (!(value instanceof Uint8Array) || value[0] !== 0x53) {
    await plain.close().catch(() => undefined);
    throw new Error('the database cluster does not offer TLS');
  }
  const secure = plain.startTls();
  await secure.opened;
  return secure;
}

/**
 * Serves the tunnel on `ws` (already accepted) until either side closes. Encryption requests
 * are declined: the WebSocket carries the bytes over HTTPS, and the tunnel speaks TLS to the
 * cluster itself when `target.tls` is set.
 */
export function servePostgresTunnel(ws: WebSocket, target: TunnelTarget): void {
  let phase: 'startup' | 'connecting' | 'open' | 'closed' = 'startup';
  let pending: Uint8Array = EMPTY;
  let socket: Socket | undefined;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let writes: Promise<void> = Promise.resolve();

  const send = (bytes: Uint8Array): void => {
    try {
      ws.send(bytes);
    } catch {
      // The WebSocket is already gone; the close handler tidies up.
    }
  };
  const close = (code: number, reason: string): void => {
    if (phase === 'closed') return;
    phase = 'closed';
    pending = EMPTY;
    socket?.close().catch(() => undefined);
    try {
      ws.close(code, reason);
    } catch {
      // Already closed.
    }
  };
  const refuse = (reason: string): void => {
    send(fatalError(reason));
    close(1008, reason);
  };

  const connectCluster = async (): Promise<void> => {
    try {
      socket = await openCluster(target);
    } catch {
      send(fatalError('cannot reach the database cluster'));
      close(1011, 'cannot reach the database cluster');
      return;
    }
    if (phase === 'closed') {
      await socket.close().catch(() => undefined);
      return;
    }
    const open = socket;
    writer = open.writable.getWriter();
    const first = pending;
    pending = EMPTY;
    phase = 'open';
    forward(first);
    open.readable.pipeTo(new WritableStream<Uint8Array>({ write: (chunk) => send(chunk) })).then(
      () => close(1000, 'database closed the connection'),
      () => close(1011, 'database connection failed'),
    );
  };

  const forward = (bytes: Uint8Array): void => {
    const out = writer;
    if (!out || bytes.length === 0) return;
    // Chained so bytes reach the cluster in the order they arrived.
    writes = writes.then(() => out.write(bytes)).catch(() => close(1011, 'database connection failed'));
  };

  const inspect = (): void => {
    for (;;) {
      const packet = readStartupPacket(pending);
      if (packet.type === 'incomplete') {
        if (pending.length > MAX_STARTUP_LENGTH) refuse('start-up packet too long');
        return;
      }
      if (packet.type === 'invalid') {
        refuse(packet.reason);
        return;
      }
      if (packet.type === 'encryption') {
        send(ENCRYPTION_DECLINED);
        pending = pending.subarray(packet.length);
        continue;
      }
      if (packet.type === 'startup') {
        const why = startupRefusal(packet.params, target.database);
        if (why) {
          refuse(why);
          return;
        }
      }
      // A start-up for this database, or a CancelRequest (it names a backend by its secret key).
      phase = 'connecting';
      void connectCluster();
      return;
    }
  };

  // Runtimes with standard WebSocket semantics deliver binary frames as Blobs unless told otherwise.
  ws.binaryType = 'arraybuffer';
  ws.addEventListener('message', (event) => {
    if (phase === 'closed') return;
    if (typeof event.data === 'string') return refuse('the tunnel carries binary frames only');
    const bytes = new Uint8Array(event.data);
    if (phase === 'open') return forward(bytes);
    pending = concat(pending, bytes);
    if (pending.length > MAX_BUFFERED) return refuse('too much data before the database answered');
    if (phase === 'startup') inspect();
  });
  ws.addEventListener('close', () => close(1000, 'client closed the tunnel'));
  ws.addEventListener('error', () => close(1011, 'client connection failed'));
}
