/**
 * CPU time of one process to the nanosecond: the sum over its threads of
 * `/proc/<pid>/task/<tid>/schedstat` (time on a CPU, ns). /proc/<pid>/stat counts in 10 ms
 * clock ticks, too coarse for a reconciler tick of a few tens of milliseconds. The scale bench
 * runs two stacks side by side, so each workerd is told apart by its pid: the one that appeared
 * while its stack started. Linux only (elsewhere every reading is 0).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds `pid` has used so far, all its threads together (0 when unreadable). */
export function processCpuMs(pid: number): number {
  let ns = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

/** The parent of `pid` (0 when unreadable). */
function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Whether `pid` descends from `root` (other work on the machine runs workerd too). */
function descendsFrom(pid: number, root: number): boolean {
  for (let p = parentOf(pid), hops = 0; p > 1 && hops < 64; p = parentOf(p), hops++)
    if (p === root) return true;
  return false;
}

/** Pids of the running processes named `comm` (e.g. `workerd`) below this process. */
export function pidsNamed(comm: string): Set<number> {
  const out = new Set<number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm && descendsFrom(Number(pid), process.pid))
        out.add(Number(pid));
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

/**
 * Waits until `pid` has been idle (less than `idleMs` of CPU per 250 ms) for `quietMs` and
 * returns the CPU it used meanwhile: the work still running after a measured call (a queue
 * consumer working what the call sent). Gives up after `maxMs`.
 */
export async function settle(pid: number, quietMs = 2_000, maxMs = 120_000, idleMs = 1): Promise<number> {
  const start = processCpuMs(pid);
  const began = Date.now();
  let last = start;
  let still = 0;
  while (still * 250 < quietMs && Date.now() - began < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = processCpuMs(pid);
    still = now - last < idleMs ? still + 1 : 0;
    last = now;
  }
  return last - start;
}
