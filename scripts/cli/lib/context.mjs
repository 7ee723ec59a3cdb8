// @ts-check
/** What every command's action starts from: its flags, the settings and, on demand, the API. */
import { createApi } from './api.mjs';
import { loadSettings } from './config.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {{ settings: import('./config.mjs').Settings,
 *   flags: Record<string, unknown>, api: () => import('./api.mjs').Api }} Context
 */

/**
 * Builds the context of `cmd` (its own options merged over the program's).
 * @param {Command} cmd
 * @param {{ readLink?: boolean }} [opts] readLink false: ignore the working folder's link
 * @returns {Promise<Context>}
 */
export async function contextOf(cmd, opts = {}) {
  const flags = cmd.optsWithGlobals();
  const settings = await loadSettings(
    { project: typeof flags.project === 'string' ? flags.project : undefined },
    opts,
  );
  /** @type {import('./api.mjs').Api | undefined} */
  let api;
  return {
    settings,
    flags,
    api: () => {
      api ??= createApi(settings);
      return api;
    },
  };
}

/**
 * Help text listing examples, shown after a command's options.
 * @param {string[]} lines
 */
export const examples = (lines) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
