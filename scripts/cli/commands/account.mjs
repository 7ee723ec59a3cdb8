// @ts-check
/** `tether login` and `tether logout`: the stored token and API address. */
import { text } from 'node:stream/consumers';
import { createApi } from '../lib/api.mjs';
import { configPath, DEFAULT_API_URL, normaliseApiUrl, readConfig, writeConfig } from '../lib/config.mjs';
import { examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, say } from '../lib/output.mjs';

/** @typedef {import('commander').Command} Command */

/** Reads a token piped on stdin (`--token -`), so it stays out of shell history and `ps`. */
async function tokenFromStdin() {
  if (process.stdin.isTTY) throw new UsageError('--token - reads the token from a pipe, not a terminal');
  return (await text(process.stdin)).trim();
}

/** @param {Command} program */
export function registerAccount(program) {
  program
    .command('login')
    .description('check an account token with the API and store it for later commands')
    .requiredOption('--token <token>', 'an account token (`-` reads it from stdin)')
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
        'pass show tether | tether login --token -',
      ])}\nThe token is stored in ${configPath()} (mode 0600).\n`,
    )
    .action(async (/** @type {{ token: string, api?: string, json?: boolean }} */ opts) => {
      const token = opts.token === '-' ? await tokenFromStdin() : opts.token.trim();
      if (!token) throw new UsageError('the token is empty');
      const stored = await readConfig();
      const apiUrl = normaliseApiUrl(
        opts.api || process.env.TETHER_API_URL || stored.api_url || DEFAULT_API_URL,
      );
      /** @type {{ id: string, email: string, name?: string | null }} */
      const account = await createApi({ apiUrl, token }).get('/api/v1/account');
      await writeConfig({ ...stored, api_url: apiUrl, token });
      if (opts.json) printJson({ api_url: apiUrl, account });
      else say(`Logged in to ${apiUrl} as ${account.email}. Saved in ${configPath()}.`);
    });

  program
    .command('logout')
    .description('forget the stored token (the token itself stays valid until revoked)')
    .addHelpText('after', examples(['tether logout']))
    .action(async () => {
      const stored = await readConfig();
      if (stored.token === undefined) {
        say('Not logged in.');
        return;
      }
      const { token: _forgotten, ...rest } = stored;
      await writeConfig(rest);
      say(`Removed the token from ${configPath()}.`);
    });
}
