// @ts-check
/** `tether login`, `tether whoami` and `tether logout`: the stored token and API address. */
import { spawn } from 'node:child_process';
import { text } from 'node:stream/consumers';
import { createApi, dataOf } from '../lib/api.mjs';
import { configPath, DEFAULT_API_URL, normaliseApiUrl, readConfig, writeConfig } from '../lib/config.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import {
  browserLogin,
  deviceLogin,
  LOGIN_TOKEN_DAYS,
  machineName,
  revokeOwnToken,
} from '../lib/login-flows.mjs';
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

/** @param {Command} program */
export function registerAccount(program) {
  program
    .command('login')
    .description('sign in: through the browser, with a device code, or with a token you have')
    .option(
      '--device',
      'sign in on another device: type the code this prints into the console (no browser here)',
    )
    .option('--token <token>', 'store this account token instead (`-` reads it from stdin)')
    .option(
      '--api <url>',
      `the API's base URL (default: TETHER_API_URL, the stored one, or ${DEFAULT_API_URL})`,
    )
    .option('--json', 'print the account as JSON')
    .addHelpText(
      'after',
      `${examples([
        'tether login                      # opens the console: press Authorize',
        'tether login --device             # prints a code to type at /console/device elsewhere',
        'tether login --api https://tether.example.com',
        'pass show tether | tether login --token -',
      ])}\nThe browser and device logins create a personal token named after this machine (90 days;\n` +
        `tether logout revokes it). The token is stored in ${configPath()} (mode 0600).\n`,
    )
    .action(
      async (/** @type {{ device?: boolean, token?: string, api?: string, json?: boolean }} */ opts) => {
        const stored = await readConfig();
        const apiUrl = normaliseApiUrl(
          opts.api || process.env.TETHER_API_URL || stored.api_url || DEFAULT_API_URL,
        );
        if (opts.device && opts.token !== undefined)
          throw new UsageError('--device and --token exclude each other');
        let token;
        /** @type {{ id: string, email: string, name?: string | null }} */
        let account;
        /** @type {string | undefined} */
        let via;
        if (opts.token !== undefined) {
          token = opts.token === '-' ? await tokenFromStdin() : opts.token.trim();
          if (!token) throw new UsageError('the token is empty');
          account = await dataOf(createApi({ apiUrl, token }).GET('/api/v1/account'));
        } else {
          const login = opts.device
            ? await deviceLogin(apiUrl, (start) =>
                process.stderr.write(
                  `On any device signed in to the console, open\n  ${start.verification_uri}\nand enter the code\n  ${start.user_code}\n` +
                    `(or open ${start.verification_uri_complete}). It expires in ${Math.round(start.expires_in / 60)} minutes.\nWaiting for approval...\n`,
                ),
              )
            : await browserLogin(apiUrl, (url) => {
                const opened = openBrowser(url);
                process.stderr.write(
                  `${opened ? 'Opening' : 'Open'} this page to authorize tether login:\n  ${url}\nWaiting for the browser...\n`,
                );
              });
          token = login.token;
          account = login.account;
          via = `a new personal token "${machineName()}" (${LOGIN_TOKEN_DAYS} days)`;
        }
        await writeConfig({ ...stored, api_url: apiUrl, token });
        if (opts.json) printJson({ api_url: apiUrl, account });
        else
          say(
            `Logged in to ${apiUrl} as ${account.email}${via ? ` with ${via}` : ''}. Saved in ${configPath()}.`,
          );
      },
    );

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
    .description('revoke the stored token on the server and forget it here')
    .option('--local', 'only forget the token here (it stays valid until revoked)')
    .option('--json', 'print the outcome as JSON')
    .addHelpText('after', examples(['tether logout', 'tether logout --local']))
    .action(async (/** @type {{ local?: boolean, json?: boolean }} */ opts) => {
      const stored = await readConfig();
      const token = stored.token;
      let revoked = false;
      if (token !== undefined && !opts.local) {
        const apiUrl = normaliseApiUrl(process.env.TETHER_API_URL || stored.api_url || DEFAULT_API_URL);
        try {
          revoked = await revokeOwnToken(apiUrl, token);
        } catch (err) {
          warn('the token could not be revoked, so it is still stored; try again, or tether logout --local');
          throw err;
        }
      }
      if (token !== undefined) {
        const { token: _forgotten, ...rest } = stored;
        await writeConfig(rest);
      }
      if (opts.json) printJson({ logged_out: token !== undefined, revoked, config: configPath() });
      else if (token === undefined) say('Not logged in.');
      else
        say(
          `${revoked ? 'Revoked the token on the server and removed' : 'Removed'} it from ${configPath()}.` +
            (opts.local ? ' It stays valid until revoked (tether tokens).' : ''),
        );
      if (process.env.TETHER_TOKEN) warn('TETHER_TOKEN is set in the environment and still used');
    });
}
