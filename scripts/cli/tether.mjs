#!/usr/bin/env -S node --
// @ts-check
/**
 * tether: the command-line tool of the Tether management API. Plain JavaScript modules with
 * JSDoc types (checked by `tsc -p scripts/cli`), so `npx tether` runs right after `npm ci`
 * with no build step. Exit codes: 0 success, 1 usage error, 2 the API refused, 3 network failure.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerPrincipals } from './commands/access.mjs';
import { registerAccount } from './commands/account.mjs';
import { registerActivity } from './commands/activity.mjs';
import { registerAuth } from './commands/auth.mjs';
import { registerCompletion } from './commands/completion.mjs';
import { registerConnections } from './commands/connections.mjs';
import { registerDb } from './commands/db.mjs';
import { registerEnv } from './commands/env.mjs';
import { registerLink } from './commands/link.mjs';
import { registerMembers } from './commands/members.mjs';
import { registerProjects, registerSites } from './commands/projects.mjs';
import { registerRun } from './commands/run.mjs';
import { registerServedKind } from './commands/served-kinds.mjs';
import { registerBucket } from './commands/services.mjs';
import { registerTokens } from './commands/tokens.mjs';
import { examples } from './lib/context.mjs';
import { ApiRefusal, CliError, EXIT } from './lib/errors.mjs';
import { fail, setWide } from './lib/output.mjs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

const program = new Command('tether')
  .description(
    'Create projects, sites, databases, buckets and auth apps; connect them; pull variables; tunnel databases.',
  )
  .version(String(pkg.version))
  .option(
    '-p, --project <project>',
    'project slug or id (default: TETHER_PROJECT, then .tether/project.json)',
  )
  .option('--wide', 'tables: every value whole (no cutting to the terminal width) and exact times')
  .hook('preAction', (_program, action) => setWide(Boolean(action.optsWithGlobals().wide)))
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `${examples([
      'tether login --token tth_at_...',
      'tether projects create Shop && tether link shop',
      'tether sites create web',
      'tether db create main',
      'tether connections',
      'tether connect database main --level read-only',
      'tether env pull',
      'tether run -- npm run dev',
      'tether rotate database main',
      'tether connect --local',
    ])}
Tables fit the terminal (COLUMNS, else its width, else 80 columns), cutting the widest values
with …; --wide shows them whole with exact times, --json gives the API's answer.
Environment: TETHER_TOKEN, TETHER_API_URL and TETHER_PROJECT override the stored settings.
Exit codes: 0 success, 1 usage error, 2 the API refused (its message is shown), 3 network failure.
`,
  );

registerAccount(program);
registerProjects(program);
registerSites(program);
registerLink(program);
registerConnections(program);
registerEnv(program);
registerRun(program);
registerDb(program);
registerBucket(program);
registerPrincipals(program);
registerAuth(program);
registerTokens(program);
registerMembers(program);
registerActivity(program);
registerCompletion(program);
// A kind the server registers and the tool has no command for: its group, when the line names it.
await registerServedKind(program, process.argv);

// A reader that stops early (`tether completion bash | head`) is no failure of the tool.
process.stdout.on('error', (err) => {
  if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EPIPE') process.exit(0);
  throw err;
});

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
