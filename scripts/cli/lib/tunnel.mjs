// @ts-check
/**
 * Local ends of database tunnels: a TCP listener on 127.0.0.1 whose every accepted socket is
 * carried over its own WebSocket to the API's tunnel route (Bearer token in the upgrade).
 */
import { createServer } from 'node:net';
import WebSocket, { createWebSocketStream } from 'ws';
import { UsageError } from './errors.mjs';

/**
 * @typedef {{ port: number, close: () => Promise<void> }} Listener
 * @typedef {{ wsUrl: string, token: string, onProblem: (message: string) => void }} TunnelOptions
 */

/**
 * The WebSocket address of an API path: http becomes ws, https becomes wss.
 * @param {string} apiUrl
 * @param {string} path
 */
export function wsUrlOf(apiUrl, path) {
  return `${apiUrl.replace(/^http/, 'ws')}${path}`;
}

/**
 * The message of a refused upgrade, from the API's `{"error":{"message"}}` body.
 * @param {import('node:http').IncomingMessage} res
 * @returns {Promise<string>}
 */
function refusedMessage(res) {
  return new Promise((resolve) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      text += chunk;
    });
    res.on('error', () => resolve(`HTTP ${res.statusCode}`));
    res.on('end', () => {
      try {
        const body = JSON.parse(text);
        resolve(String(body?.error?.message ?? body?.error ?? `HTTP ${res.statusCode}`));
      } catch {
        resolve(`HTTP ${res.statusCode}`);
      }
    });
  });
}

/**
 * Opens a listener on 127.0.0.1:`port` (0: any free port) tunnelling each connection.
 * @param {number} port
 * @param {TunnelOptions} opts
 * @returns {Promise<Listener>} whose close() also ends every open tunnel, both of its ends
 */
export async function listen(port, opts) {
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  /** @type {Set<WebSocket>} */
  const webSockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const ws = carry(socket, opts);
    webSockets.add(ws);
    ws.on('close', () => webSockets.delete(ws));
  });
  await new Promise((resolve, reject) => {
    server.once('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      if (code === 'EADDRINUSE')
        reject(new UsageError(`port ${port} is in use: choose another first port with --port`));
      else reject(err);
    });
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    port: bound,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        // A destroyed socket does not end the WebSocket stream it is piped into, so each
        // WebSocket is ended here too: one left open keeps the process running after Ctrl-C.
        for (const ws of webSockets) ws.terminate();
        server.close(() => resolve(undefined));
      }),
  };
}

/**
 * Carries one local socket over a new WebSocket until either side ends.
 * @param {import('node:net').Socket} socket
 * @param {TunnelOptions} opts
 * @returns {WebSocket} the WebSocket, for the listener to end when it closes
 */
function carry(socket, opts) {
  const ws = new WebSocket(opts.wsUrl, {
    headers: { authorization: `Bearer ${opts.token}` },
    perMessageDeflate: false,
  });
  ws.on('unexpected-response', (_req, res) => {
    socket.destroy();
    void refusedMessage(res).then((message) => {
      opts.onProblem(`the API refused the tunnel: ${message}`);
      // Ends the handshake; the stream's error that follows finds the socket already gone.
      ws.terminate();
    });
  });
  const stream = createWebSocketStream(ws);
  stream.on('error', (err) => {
    if (!socket.destroyed && ws.readyState !== WebSocket.CLOSED)
      opts.onProblem(`tunnel failed: ${err.message}`);
    socket.destroy();
  });
  socket.on('error', () => stream.destroy());
  socket.pipe(stream).pipe(socket);
  return ws;
}

/**
 * A database URL pointing at the local end of its tunnel, or undefined for anything that is
 * not a PostgreSQL URL. Encryption is off on this hop: it never leaves the machine, and the
 * WebSocket carries the bytes over HTTPS.
 * @param {string} url
 * @param {number} port
 */
export function localDatabaseUrl(url, port) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return undefined;
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  parsed.searchParams.delete('ssl');
  parsed.searchParams.set('sslmode', 'disable');
  return parsed.toString();
}
