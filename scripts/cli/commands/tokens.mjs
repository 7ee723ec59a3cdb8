// @ts-check
/** `tether tokens`: your personal tokens (list, create with an expiry, revoke). */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, printTable, say, shortId, when } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';

/**
 * @typedef {import('commander').Command} Command
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The whole id of the live token whose id is or starts with `given` (the table shows 8 characters).
 * @param {import('../lib/api.mjs').Api} api
 * @param {string} given
 */
async function tokenIdOf(api, given) {
  if (UUID.test(given)) return given;
  const { tokens } = await dataOf(api.GET('/api/v1/account/tokens'));
  const matching = tokens.filter((t) => t.id.startsWith(given.toLowerCase()));
  if (given.length > 0 && matching.length === 1) return /** @type {{ id: string }} */ (matching[0]).id;
  throw new UsageError(
    matching.length > 1
      ? `${matching.length} tokens have an id starting with ${given}: give more of it (tether tokens --wide)`
      : `no live token has an id starting with ${given} (tether tokens)`,
  );
}

/** @param {Command} program */
export function registerTokens(program) {
  const tokens = program
    .command('tokens')
    .description('your personal tokens (list, create, revoke)')
    .addHelpText(
      'after',
      examples([
        'tether tokens',
        'tether tokens create ci --expires 30 --read-only',
        'tether tokens revoke <token id> --yes',
      ]),
    );
  tokens
    .command('ls', { isDefault: true })
    .alias('list')
    .description('list your live personal tokens (never their values)')
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const api = (await contextOf(cmd, { readLink: false })).api();
      const listing = await dataOf(api.GET('/api/v1/account/tokens'));
      if (opts.json) return printJson(listing);
      if (listing.tokens.length === 0) return say('No personal tokens: tether tokens create <name>');
      printTable(
        ['ID', 'NAME', 'ACCESS', 'CREATED', 'EXPIRES', 'LAST USED'],
        listing.tokens.map((t) => [
          shortId(t.id),
          t.name ?? '',
          t.read_only ? 'read-only' : 'full',
          t.created_at,
          t.expires_at ?? 'never',
          t.last_used_at ?? 'never',
        ]),
      );
    });
  tokens
    .command('create')
    .description('create a personal token; its value is shown this once')
    .argument('<name>', 'what the token is for')
    .option('--expires <days>', 'days until it expires, 1 to 365', '90')
    .option('--read-only', 'the token may read but never change anything')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ expires: string, readOnly?: boolean, json?: boolean }} */ opts,
        cmd,
      ) => {
        const days = Number(opts.expires);
        if (!Number.isInteger(days) || days < 1 || days > 365)
          throw new UsageError('--expires takes a whole number of days from 1 to 365');
        const api = (await contextOf(cmd, { readLink: false })).api();
        const made = await dataOf(
          api.POST('/api/v1/account/tokens', {
            body: { name, expires_in_days: days, ...(opts.readOnly ? { read_only: true } : {}) },
          }),
        );
        if (opts.json) return printJson(made);
        say(
          `Created token ${made.name} (${made.id}), ${made.read_only ? 'read-only' : 'full access'}, expires ${made.expires_at ? when(made.expires_at) : 'never'}.`,
        );
        say('Its value, shown this once:');
        say(made.token);
      },
    );
  tokens
    .command('revoke')
    .description('revoke a personal token and the console sessions it opened')
    .argument('<id>', "the token's id, or its start as `tether tokens` shows it")
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ given, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
        const api = (await contextOf(cmd, { readLink: false })).api();
        const id = await tokenIdOf(api, given);
        await confirm(`Revoke token ${id}`, 'Anything using it stops working at once.', opts);
        const answer = await dataOf(
          api.DELETE('/api/v1/account/tokens/{tokenId}', { params: { path: { tokenId: id } } }),
        );
        if (opts.json) return printJson(answer);
        say(`Revoked token ${id}.`);
      },
    );
}
