/** Parent side of the load generator: runs load-child.ts in its own Node process, bounded in time. */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './stats';
import type { LoadSpec } from './types';

const CHILD = fileURLToPath(new URL('./load-child.ts', import.meta.url));

/** Longest a `once` run may take, whatever its size. */
const ONCE_LIMIT_SEC = 120;

/** Runs `spec` in a child process and returns its measurement; kills the child past its time bound. */
export async function runLoad(spec: LoadSpec): Promise<Measurement> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-bench-load-'));
  const specPath = join(dir, 'spec.json');
  const outPath = join(dir, 'out.json');
  try {
    await writeFile(specPath, JSON.stringify(spec));
    const runSec =
      spec.mode === 'cycle'
        ? (spec.durationSec ?? 10) + (spec.warmupSec ?? 0)
        : (spec.durationSec ?? ONCE_LIMIT_SEC);
    const limitMs = (runSec + spec.timeoutSec + 15) * 1000;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, specPath, outPath], {
        stdio: ['ignore', 'inherit', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`load generator still running after ${limitMs / 1000} s; killed`));
      }, limitMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`load generator exited with ${code ?? signal}: ${stderr.trim()}`));
      });
    });
    return JSON.parse(await readFile(outPath, 'utf8')) as Measurement;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
