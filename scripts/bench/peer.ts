/** Parent side of the exchange peer: starts peer-oidc.ts in its own process and waits until its codes are minted. */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadRequest } from './types';

const CHILD = fileURLToPath(new URL('./peer-oidc.ts', import.meta.url));
const READY_LIMIT_MS = 120_000;

/** A running peer with `count` ready token requests. */
export interface Peer {
  origin: string;
  requests: LoadRequest[];
  /** The peer's process, for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts the oidc-provider peer and mints `count` codes in it. */
export async function startPeer(count: number): Promise<Peer> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-bench-peer-'));
  const outPath = join(dir, 'peer.json');
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, String(count), outPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(forced);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error('peer not ready in time')), READY_LIMIT_MS);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`peer exited with ${code}: ${stderr.trim()}`));
      });
    });
    const { origin, requests } = JSON.parse(await readFile(outPath, 'utf8')) as Peer;
    return { origin, requests, stop, pid: child.pid };
  } catch (err) {
    await stop();
    throw err;
  }
}
