#!/usr/bin/env node
// @ts-check
/**
 * tether: the command-line tool of the Tether management API. Plain JavaScript modules with
 * JSDoc types (checked by `tsc -p scripts/cli`), so `npx tether` runs right after `npm ci`
 * with no build step. Exit codes: 0 success, 1 usage error, 2 the API refused, 3 network failure.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAccount } from './commands/account.mjs';
import { registerConnections } from './commands/connections.mjs';
import { registerDb } from './commands/db.mjs';
import { registerEnv } from './commands/env.mjs';
import { registerLink } from './commands/link.mjs';
import { examples } from './lib/context.mjs';
import { ApiRefusal, CliError, EXIT } from './lib/errors.mjs';
import { fail } from './lib/output.mjs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

const program = new Command('tether')
  .description('Connect sites to databases, buckets and auth apps; pull variables; tunnel databases.')
  .version(String(pkg.version))
  .option(
    '-p, --project <project>',
    'project slug or id (default: TETHER_PROJECT, then .tether/project.json)',
  )
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `${examples([
      'tether login --token tth_at_...',
      'tether link my-shop --site web',
      'tether connections',
      'tether connect database main --level read-only',
      'tether env pull',
      'tether connect --local',
    ])}
Environment: TETHER_TOKEN, TETHER_API_URL and TETHER_PROJECT override the stored settings.
Exit codes: 0 success, 1 usage error, 2 the API refused (its message is shown), 3 network failure.
`,
  );

registerAccount(program);
registerLink(program);
registerConnections(program);
registerEnv(program);
registerDb(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ApiRefusal) {
    fail(`${err.message} (HTTP ${err.status}${err.code ? ` ${err.code}` : ''})`);
    process.exitCode = err.exitCode;
  } else if (err instanceof CliError) {
    fail(err.message);
    process.exitCode = err.exitCode;
  } else {
    fail(`unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = EXIT.USAGE;
  }
}
