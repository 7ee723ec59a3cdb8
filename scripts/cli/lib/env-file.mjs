// @ts-check
/** Writing a site's variables to a local env file: dotenv syntax, mode 0600, a git-ignore check. */
import { relative, resolve } from 'node:path';
import { formatDotenv, UnrepresentableError } from './dotenv-writer.mjs';
import { UsageError } from './errors.mjs';
import { gitIgnores, writePrivateFile } from './files.mjs';
import { warn } from './output.mjs';

/**
 * Writes `vars` to `file` (relative to the working folder) and warns when git would not ignore
 * it. Nothing is written when a value cannot be held exactly.
 * @param {string} file
 * @param {Record<string, string>} vars
 * @param {string[]} header comment lines
 * @returns {Promise<string>} the path written, relative to the working folder
 */
export async function writeEnvFile(file, vars, header) {
  const path = resolve(file);
  let text;
  try {
    text = formatDotenv(vars, header);
  } catch (err) {
    if (err instanceof UnrepresentableError) throw new UsageError(`${err.message}; nothing was written`);
    throw err;
  }
  await writePrivateFile(path, text);
  const shown = relative(process.cwd(), path) || path;
  if (gitIgnores(path) === false) {
    warn(`${shown} holds secrets and is not ignored by git: add it to .gitignore`);
  }
  return shown;
}
