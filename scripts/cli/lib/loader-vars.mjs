// @ts-check
/**
 * Loader variables (`NODE_OPTIONS`, `LD_PRELOAD`, … docs/contract.md §9) make the program that
 * starts with them load code of their choosing, so a write member who set one could run code on
 * whoever uses the site's variables locally. `tether run` and `tether env pull` leave them out
 * unless `--allow-loader-vars`, and say which they left out.
 */
import { isLoaderVariable } from '../../../functions/lib/shell-safe-env.mjs';
import { warn } from './output.mjs';

/** The option both commands take: its flags and its help. */
export const ALLOW_LOADER_VARS = /** @type {const} */ ([
  '--allow-loader-vars',
  'hand over loader variables (NODE_OPTIONS, LD_PRELOAD, PATH, …) too',
]);

/**
 * `vars` without loader variables (unless `allow`), warning on standard error which were left out.
 * @param {Record<string, string>} vars
 * @param {boolean | undefined} allow
 * @returns {Record<string, string>}
 */
export function withoutLoaderVars(vars, allow) {
  if (allow) return vars;
  const skipped = Object.keys(vars).filter(isLoaderVariable).sort();
  if (skipped.length === 0) return vars;
  warn(
    `Skipped ${skipped.join(', ')}: loader variable${skipped.length === 1 ? '' : 's'} make programs load code of ${skipped.length === 1 ? 'its' : 'their'} choosing (--allow-loader-vars hands ${skipped.length === 1 ? 'it' : 'them'} over).`,
  );
  return Object.fromEntries(Object.entries(vars).filter(([name]) => !isLoaderVariable(name)));
}
