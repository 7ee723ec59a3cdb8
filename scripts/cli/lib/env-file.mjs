// @ts-check
/**
 * Writing a site's variables to a local env file: dotenv syntax a shell may also source, mode
 * 0600, never over a file the tool did not write without consent (and then with a backup), and
 * a git-ignore check.
 */
import { chmod, copyFile, readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { UnrepresentableError } from './dotenv-writer.mjs';
import { formatVars } from './env-formats.mjs';
import { UsageError } from './errors.mjs';
import { gitIgnores, writePrivateFile } from './files.mjs';
import { warn } from './output.mjs';
import { confirm } from './prompt.mjs';

/** The mark in the first comment line of every file this tool writes. */
const MARK = 'written by tether';

/**
 * The header lines of a file written by `command`.
 * @param {string} command e.g. `env pull`
 * @param {string} what what the file holds
 */
export const envFileHeader = (command, what) => [`Written by tether ${command}. ${what}.`];

/**
 * The current text of `path`, or undefined when there is no such file.
 * @param {string} path
 */
async function existing(path) {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code === 'ENOENT') return undefined;
    // A folder in the way and the like: the write below reports it in its own words.
    return undefined;
  }
}

/** A timestamp for backup names: 20261124-101502. */
function stamp() {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/**
 * Writes `vars` to `file` (relative to the working folder) and warns when git would not ignore
 * it. A file there that this tool did not write is replaced only once confirmed (`yes`, or a
 * question on a terminal), and a copy of it is kept as `<file>.<timestamp>.bak`. Nothing is
 * written when a value cannot be held exactly.
 * @param {string} file
 * @param {Record<string, string>} vars
 * @param {string[]} header comment lines (from {@link envFileHeader})
 * @param {{ yes?: boolean, format?: import('./env-formats.mjs').EnvFormat }} [opts] `format`: dotenv by default
 * @returns {Promise<{ file: string, backup?: string, dotenvOnly: string[] }>} paths relative to the working folder
 */
export async function writeEnvFile(file, vars, header, opts = {}) {
  const path = resolve(file);
  const shown = relative(process.cwd(), path) || path;
  let formatted;
  try {
    formatted = formatVars(vars, opts.format ?? 'dotenv', header);
  } catch (err) {
    if (err instanceof UnrepresentableError) throw new UsageError(`${err.message}; nothing was written`);
    throw err;
  }
  const before = await existing(path);
  /** @type {string | undefined} */
  let backup;
  if (before !== undefined && before !== formatted.text) {
    const first = (before.split('\n', 1)[0] ?? '').toLowerCase();
    // JSON has no comments to carry the mark: a JSON file is replaced only once confirmed.
    const ours = first.startsWith('#') && first.includes(MARK);
    if (!ours) {
      await confirm(`Replace ${shown}, which tether did not write`, 'A copy is kept beside it.', opts).catch(
        (err) => {
          throw err instanceof UsageError && /no terminal/.test(err.message)
            ? new UsageError(
                `${shown} exists and was not written by tether: pass --yes to replace it (a copy is kept as ${shown}.<timestamp>.bak), or choose another file`,
              )
            : err;
        },
      );
    }
    backup = `${path}.${stamp()}.bak`;
    await copyFile(path, backup);
    await chmod(backup, 0o600);
  }
  await writePrivateFile(path, formatted.text);
  for (const written of backup ? [path, backup] : [path]) {
    if (gitIgnores(written) === false) {
      const name = relative(process.cwd(), written) || written;
      warn(`${name} holds secrets and is not ignored by git: add it to .gitignore`);
    }
  }
  return {
    file: shown,
    ...(backup ? { backup: relative(process.cwd(), backup) || backup } : {}),
    dotenvOnly: formatted.dotenvOnly,
  };
}
