/**
 * Small networking helpers shared by the local stack.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port {@link freePort} hands out: above the well-known and most registered services' ports. */
const LOWEST_PORT = 10_000;

/**
 * The first port the kernel hands out for `listen(0)` and for outgoing connections' own ends
 * (Linux's net.ipv4.ip_local_port_range; 32768 by default, and where it cannot be read).
 */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST_PORT + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Ports this process has handed out, so two servers it starts side by side never get the same one. */
const handedOut = new Set<number>();

/** How many random ports {@link freePort} tries before it lets the kernel choose. */
const RANDOM_TRIES = 50;

/**
 * Finds a TCP port that is free on 127.0.0.1, for a server to start on soon after. It is chosen
 * at random below the kernel's ephemeral range: a port the kernel hands out (`listen(0)`) is also
 * where it puts the local end of outgoing connections, and a test run opens thousands, so such a
 * port was taken again before its server bound it, now and then (EADDRINUSE). Below that range only
 * another server choosing the same port can take it; this process never hands one out twice.
 */
export async function freePort(): Promise<number> {
  const below = firstEphemeralPort() - LOWEST_PORT;
  for (let attempt = 0; attempt < RANDOM_TRIES; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * below);
    if (handedOut.has(port)) continue;
    // Held before the check, so a call beside this one cannot choose it meanwhile.
    handedOut.add(port);
    if (await isPortFree(port)) return port;
    handedOut.delete(port);
  }
  return kernelChosenPort();
}

/** A port the kernel chooses (`listen(0)`), released at once. */
function kernelChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not find a free port'))));
    });
  });
}

/** Tells whether `port` can be bound on 127.0.0.1 right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
