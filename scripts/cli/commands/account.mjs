// @ts-check
/** `tether login`, `tether whoami` and `tether logout`: the stored token and API address. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline/promises';
import { text } from 'node:stream/consumers';
import { createApi, dataOf } from '../lib/api.mjs';
import { configPath, DEFAULT_API_URL, normaliseApiUrl, readConfig, writeConfig } from '../lib/config.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, say, warn } from '../lib/output.mjs';

/** @typedef {import('commander').Command} Command */

/** Reads a token piped on stdin (`--token -`), so it stays out of shell history and `ps`. */
async function tokenFromStdin() {
  if (process.stdin.isTTY) throw new UsageError('--token - reads the token from a pipe, not a terminal');
  return (await text(process.stdin)).trim();
}

/**
 * Opens `url` in the default browser, if this machine has a way to; false otherwise.
 * @param {string} url
 */
function openBrowser(url) {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Without --token: the console's sign-in page in the browser, then the token pasted here.
 * @param {string} apiUrl
 */
async function tokenFromConsole(apiUrl) {
  if (!process.stdin.isTTY) {
    throw new UsageError(
      'no --token, and no terminal to paste one into: tether login --token <token> (or --token - to read it from stdin)',
    );
  }
  const page = `${apiUrl}/console/login`;
  openBrowser(page);
  process.stderr.write(
    `Sign in to the console at ${page} (opened in your browser if it could be),\nthen paste an account token (tth_at_…) here.\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('Account token: ')).trim();
  } finally {
    rl.close();
  }
}

/** @param {Command} program */
export function registerAccount(program) {
  program
    .command('login')
    .description('check an account token with the API and store it for later commands')
    .option(
      '--token <token>',
      'an account token (`-` reads it from stdin); without it, the console sign-in page opens and you paste one',
    )
    .option(
      '--api <url>',
      `the API's base URL (default: TETHER_API_URL, the stored one, or ${DEFAULT_API_URL})`,
    )
    .option('--json', 'print the account as JSON')
    .addHelpText(
      'after',
      `${examples([
        'tether login --token tth_at_...',
        'tether login --token tth_at_... --api https://tether.example.com',
        'tether login            # opens the console sign-in page, then asks for the token',
        'pass show tether | tether login --token -',
      ])}\nThe token is stored in ${configPath()} (mode 0600).\n`,
    )
    .action(async (/** @type {{ token?: string, api?: string, json?: boolean }} */ opts) => {
      const stored = await readConfig();
      const apiUrl = normaliseApiUrl(
        opts.api || process.env.TETHER_API_URL || stored.api_url || DEFAULT_API_URL,
      );
      const token =
        opts.token === undefined
          ? await tokenFromConsole(apiUrl)
          : opts.token === '-'
            ? await tokenFromStdin()
            : opts.token.trim();
      if (!token) throw new UsageError('the token is empty');
      const account = await dataOf(createApi({ apiUrl, token }).GET('/api/v1/account'));
      await writeConfig({ ...stored, api_url: apiUrl, token });
      if (opts.json) printJson({ api_url: apiUrl, account });
      else say(`Logged in to ${apiUrl} as ${account.email}. Saved in ${configPath()}.`);
    });

  program
    .command('whoami')
    .description('the account the token in use belongs to, and the API it talks to')
    .option('--json', 'print the account as JSON')
    .addHelpText('after', examples(['tether whoami', 'tether whoami --json']))
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const account = await dataOf(ctx.api().GET('/api/v1/account'));
      if (opts.json) printJson({ api_url: ctx.settings.apiUrl, account });
      else say(`${account.email}${account.name ? ` (${account.name})` : ''} at ${ctx.settings.apiUrl}`);
    });

  program
    .command('logout')
    .description('forget the stored token (the token itself stays valid until revoked)')
    .option('--json', 'print the outcome as JSON')
    .addHelpText('after', examples(['tether logout']))
    .action(async (/** @type {{ json?: boolean }} */ opts) => {
      const stored = await readConfig();
      const wasLoggedIn = stored.token !== undefined;
      if (wasLoggedIn) {
        const { token: _forgotten, ...rest } = stored;
        await writeConfig(rest);
      }
      if (opts.json) printJson({ logged_out: wasLoggedIn, config: configPath() });
      else say(wasLoggedIn ? `Removed the token from ${configPath()}.` : 'Not logged in.');
      if (process.env.TETHER_TOKEN) warn('TETHER_TOKEN is set in the environment and still used');
    });
}
