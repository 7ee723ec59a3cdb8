/**
 * CPU time of the bench's processes, read from /proc/<pid>/stat (utime + stime, in clock ticks
 * of 10 ms), grouped by what they are: workerd (the Worker), PostgreSQL (the postmaster, its
 * live backends and those it has reaped), the stand-ins (this process: SQL over HTTP, the
 * WebSocket proxy, the fake Google; Miniflare's Node side is idle under load, which goes to
 * workerd directly) and the peer. The load generator is left out. Linux only: elsewhere every
 * reading is empty and the bench prints no CPU columns.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The groups CPU time is reported for. */
export type CpuGroup = 'workerd' | 'postgres' | 'standIns' | 'peer';

/** CPU milliseconds per group at one moment. */
export type CpuReading = Partial<Record<CpuGroup, number>>;

/** Linux's USER_HZ: /proc reports times in hundredths of a second. */
const TICK_MS = 10;

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime of the process itself, ms. */
  own: number;
  /** cutime + cstime: its children that exited and were waited for, ms. */
  reaped: number;
}

/** Parses one /proc/<pid>/stat line (the command may hold spaces and parentheses). */
export function parseStat(line: string): Stat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = line
    .slice(close + 2)
    .split(' ')
    .map((v) => Number(v));
  // Fields after the command, from 3 (state) on: ppid is 4, utime 14, stime 15, cutime 16, cstime 17.
  const at = (field: number): number => rest[field - 3] ?? 0;
  return {
    pid: Number(line.slice(0, open).trim()),
    ppid: at(4),
    comm: line.slice(open + 1, close),
    own: (at(14) + at(15)) * TICK_MS,
    reaped: (at(16) + at(17)) * TICK_MS,
  };
}

function readStats(): Stat[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const stats: Stat[] = [];
  for (const pid of pids) {
    try {
      const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat) stats.push(stat);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return stats;
}

/** Every process under `root`, `root` included. */
function treeOf(stats: readonly Stat[], root: number): Stat[] {
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out: Stat[] = [];
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child.pid);
    }
  };
  const self = stats.find((s) => s.pid === root);
  if (self) out.push(self);
  walk(root);
  return out;
}

/**
 * Reads the CPU time of every group now. `peerPid` names the peer's process when one runs;
 * processes that exited before the reading (a load generator) count nowhere.
 */
export function readCpu(peerPid?: number): CpuReading {
  const stats = readStats();
  if (stats.length === 0) return {};
  const tree = treeOf(stats, process.pid);
  const byPid = new Map(tree.map((s) => [s.pid, s]));
  const reading: CpuReading = { workerd: 0, postgres: 0, standIns: byPid.get(process.pid)?.own ?? 0 };
  const add = (group: CpuGroup, ms: number): void => {
    reading[group] = (reading[group] ?? 0) + ms;
  };
  for (const s of tree) {
    if (s.comm === 'workerd') add('workerd', s.own);
    else if (s.comm === 'postgres') {
      // A reaped backend's time is in its postmaster's cutime; a live one's in its own stat.
      const parent = byPid.get(s.ppid);
      add('postgres', s.own + (parent?.comm === 'postgres' ? 0 : s.reaped));
    }
  }
  if (peerPid !== undefined) {
    const peer = stats.find((s) => s.pid === peerPid);
    if (peer) reading.peer = peer.own;
  }
  return reading;
}

/** CPU milliseconds per request of each group between two readings. */
export function cpuPerRequest(before: CpuReading, after: CpuReading, requests: number): CpuReading {
  const out: CpuReading = {};
  if (!(requests > 0)) return out;
  for (const group of Object.keys(after) as CpuGroup[]) {
    const a = after[group];
    const b = before[group];
    if (a !== undefined && b !== undefined) out[group] = (a - b) / requests;
  }
  return out;
}
