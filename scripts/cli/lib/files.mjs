// @ts-check
/** Writing private files (mode 0600) atomically, and asking git whether a file is ignored. */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/**
 * Writes `text` to `file` readable only by the user: a temporary file created with mode 0600
 * beside it, then renamed over it, so no reader ever sees a half-written or wider-open file.
 * @param {string} file
 * @param {string} text
 * @param {{ dirMode?: number }} [opts] mode for a parent folder that has to be created
 */
export async function writePrivateFile(file, text, opts = {}) {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, ...(opts.dirMode ? { mode: opts.dirMode } : {}) });
  const tmp = `${dir}/.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
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
