import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, isPortFree } from './net';

const firstEphemeral = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);

describe('a free port', () => {
  it('lies below the range the kernel takes outgoing connections from, so none of them can take it first', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(firstEphemeral);
    }
  });

  it('is never handed out twice by one process, even asked for side by side', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('can be bound, and is not one a server already listens on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      expect(await isPortFree(port)).toBe(false);
      expect(await freePort()).not.toBe(port);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
