// @ts-check
/** Writing private files (mode 0600) atomically, and asking git whether a file is ignored. */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { UsageError } from './errors.mjs';

/** Plain words for the file-system errors people meet most; others keep the system's words. */
const REASONS = /** @type {Record<string, string>} */ ({
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its path is not a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
});

/**
 * Why a file-system call failed, in one line without paths: Node's own message names the
 * temporary file and the system call (`EISDIR: ..., rename '/x/.f.1a2b.tmp' -> '/x/f'`).
 * @param {NodeJS.ErrnoException} err
 */
function reasonOf(err) {
  // mkdir -p says EEXIST when a file sits where one of the folders should be.
  if (err.syscall === 'mkdir' && err.code === 'EEXIST') return REASONS.ENOTDIR;
  const known = err.code === undefined ? undefined : REASONS[err.code];
  if (known) return known;
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(err.message)?.[1];
  return words ?? err.code ?? err.message;
}

/**
 * Whether `err` comes from a file-system call (it names a system call), not from a bug.
 * @param {unknown} err
 * @returns {err is NodeJS.ErrnoException}
 */
function isFileSystemError(err) {
  return err instanceof Error && typeof (/** @type {NodeJS.ErrnoException} */ (err).syscall) === 'string';
}

/**
 * Writes `text` to `file` readable only by the user: a temporary file created with mode 0600
 * beside it, then renamed over it, so no reader ever sees a half-written or wider-open file.
 * A file that cannot be written (a folder in the way, no permission, no such place) is a usage
 * error naming it, and the temporary file is gone.
 * @param {string} file
 * @param {string} text
 * @param {{ dirMode?: number }} [opts] mode for a parent folder that has to be created
 */
export async function writePrivateFile(file, text, opts = {}) {
  try {
    await writeThroughTemporaryFile(file, text, opts);
  } catch (err) {
    if (isFileSystemError(err)) throw new UsageError(`cannot write ${file}: ${reasonOf(err)}`);
    throw err;
  }
}

/**
 * The steps of writePrivateFile, with the system's errors as they come.
 * @param {string} file
 * @param {string} text
 * @param {{ dirMode?: number }} opts
 */
async function writeThroughTemporaryFile(file, text, opts) {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, ...(opts.dirMode ? { mode: opts.dirMode } : {}) });
  const tmp = `${dir}/.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The umask can only remove bits, but be explicit: the mode is the promise.
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Whether git would ignore `file`: true or false inside a work tree, undefined when the file
 * is not in a git work tree or git is not installed (then there is nothing to commit it to).
 * @param {string} file absolute path
 * @returns {boolean | undefined}
 */
export function gitIgnores(file) {
  const result = spawnSync('git', ['check-ignore', '-q', '--', basename(file)], {
    cwd: dirname(file),
    stdio: 'ignore',
  });
  if (result.error) return undefined;
  if (result.status === 0) return true;
  if (result.status === 1) return false;
  return undefined;
}
