// @ts-check
/**
 * `tether run -- <command…>`: the command with the site's effective variables in its
 * environment (no file written), signals passed on, its exit code returned. `tether deliveries`:
 * what became of the site's live patches. `tether target show|set|rm`: where they go.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { ALLOW_LOADER_VARS, withoutLoaderVars } from '../lib/loader-vars.mjs';
import { printJson, printTable, say, sayWrapped } from '../lib/output.mjs';
import { projectOf, resolveSite } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 */

/** Signals a terminal or a supervisor sends that the child should get too. */
const FORWARDED = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2']);

/**
 * The site's API path and slug.
 * @param {Command} cmd
 * @param {string | undefined} siteSlug
 */
async function siteOf(cmd, siteSlug) {
  const ctx = await contextOf(cmd);
  const api = ctx.api();
  const site = await resolveSite(api, ctx.settings, siteSlug);
  return { api, site, path: { id: projectOf(ctx.settings), siteId: site.id } };
}

/**
 * Runs `argv` with `vars` over this process's environment; resolves with the exit code to give
 * (the child's, or 128 plus the number of the signal that ended it).
 * @param {string[]} argv
 * @param {Record<string, string>} vars
 * @returns {Promise<number>}
 */
export function runWith(argv, vars) {
  const [file, ...args] = argv;
  if (!file) throw new UsageError('tether run needs a command after --');
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'inherit', env: { ...process.env, ...vars } });
    /** @type {Array<[NodeJS.Signals, () => void]>} */
    const handlers = FORWARDED.map((signal) => [signal, () => child.kill(signal)]);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.once('error', (err) => {
      done();
      // A command that cannot be found exits 127 and one that cannot be run 126, as a shell's do.
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        process.stderr.write(
          `tether run: ${file}: ${code === 'ENOENT' ? 'command not found' : 'permission denied'}\n`,
        );
        resolve(code === 'ENOENT' ? 127 : 126);
        return;
      }
      reject(new UsageError(`could not run ${file}: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

/** @param {Command} program */
export function registerRun(program) {
  program
    .command('run')
    .description("run a command with the site's effective variables in its environment (no file written)")
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option(...ALLOW_LOADER_VARS)
    .argument('<command...>', 'the command and its arguments, after --')
    .addHelpText(
      'after',
      `${examples(['tether run -- npm run dev', "tether run --site web -- node -e 'console.log(process.env.DATABASE_URL)'"])}
Variables already in your environment are overridden by the site's. Signals (Ctrl-C, SIGTERM)
are passed to the command, and tether exits with its exit code. Loader variables (NODE_OPTIONS,
LD_PRELOAD, PATH, …) are left out, and named, unless --allow-loader-vars.
`,
    )
    .action(
      async (
        /** @type {string[]} */ argv,
        /** @type {{ site?: string, allowLoaderVars?: boolean }} */ opts,
        cmd,
      ) => {
        const { api, path } = await siteOf(cmd, opts.site);
        const { vars } = await dataOf(
          api.GET('/api/v1/projects/{id}/sites/{siteId}/env/effective', { params: { path } }),
        );
        process.exitCode = await runWith(argv, withoutLoaderVars(vars, opts.allowLoaderVars));
      },
    );

  program
    .command('deliveries')
    .description(
      "the site's latest live patches: status (pending, delivered, live, failed, dead), when live, attempts and last error (names, never values)",
    )
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--limit <n>', 'how many, newest first', '20')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether deliveries', 'tether deliveries --site web --json']))
    .action(async (/** @type {{ site?: string, limit: string, json?: boolean }} */ opts, cmd) => {
      const { api, site, path } = await siteOf(cmd, opts.site);
      const listed = await dataOf(
        api.GET('/api/v1/projects/{id}/sites/{siteId}/deliveries', {
          params: { path, query: { limit: Number(opts.limit) } },
        }),
      );
      if (opts.json) return printJson(listed);
      const where = listed.target.configured
        ? `Live patches of site ${site.slug} go to its ${listed.target.type === 'default' ? "platform's runtime receiver" : `${listed.target.type} target`}.`
        : `Site ${site.slug} has no delivery target and there is no platform-wide receiver: live patches wait as pending (tether env pull or tether run give you the variables).`;
      sayWrapped(where);
      if (listed.deliveries.length === 0) return say('No deliveries yet.');
      // LIVE: when the running app had it (docs/contract.md §14); empty until then.
      printTable(
        ['WHEN', 'REASON', 'SEQ', 'STATUS', 'LIVE', 'ATTEMPTS', 'NAMES', 'LAST ERROR'],
        listed.deliveries.map((d) => [
          d.created_at,
          d.reason,
          d.seq === null ? '' : String(d.seq),
          d.status,
          d.live_at ?? '',
          String(d.attempts),
          d.names.join(', '),
          d.last_error ?? '',
        ]),
      );
    });
}
