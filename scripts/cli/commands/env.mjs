// @ts-check
/** `tether env ls|set|unset|pull`: a site's variables. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { envFileHeader, writeEnvFile } from '../lib/env-file.mjs';
import { formatVars, parseEnvFormat } from '../lib/env-formats.mjs';
import { UsageError } from '../lib/errors.mjs';
import { ALLOW_LOADER_VARS, withoutLoaderVars } from '../lib/loader-vars.mjs';
import { printJson, printTable, say, warn, withProgress } from '../lib/output.mjs';
import { projectOf, resolveSite } from '../lib/resolve.mjs';
import { pulledSecretWarning, rotationsInProgress } from '../lib/rotation.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/context.mjs').Context} Context
 */

/** A variable name apps and shells can use. */
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The site's path and slug.
 * @param {Context} ctx
 * @param {string | undefined} siteSlug
 */
async function sitePath(ctx, siteSlug) {
  const api = ctx.api();
  const project = projectOf(ctx.settings);
  const site = await resolveSite(api, ctx.settings, siteSlug);
  return { api, project, site, path: { id: project, siteId: site.id } };
}

/**
 * `NAME=VALUE` words as a map; the value may hold `=` and be empty.
 * @param {string[]} pairs
 */
function parsePairs(pairs) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !NAME_RE.test(name)) {
      throw new UsageError(`"${pair}" is not NAME=VALUE with a name of letters, digits and _`);
    }
    out[name] = pair.slice(eq + 1);
  }
  return out;
}

/** @param {Command} program */
export function registerEnv(program) {
  const env = program
    .command('env')
    .description("a site's variables")
    .addHelpText(
      'after',
      examples([
        'tether env ls',
        'tether env set LOG_LEVEL=debug',
        'tether env unset LOG_LEVEL',
        'tether env pull',
        'tether env pull --format json config/env.json',
        'tether env pull --format shell - > env.sh',
      ]),
    );

  env
    .command('ls')
    .alias('list')
    .description("list the site's user-set variables, or with --effective every variable the app is handed")
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option(
      '--effective',
      'what the app is handed: user-set variables overlaid with derived ones (names and sources only)',
    )
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether env ls', 'tether env ls --effective --site web']))
    .action(async (/** @type {{ site?: string, effective?: boolean, json?: boolean }} */ opts, cmd) => {
      const { api, site, path } = await sitePath(await contextOf(cmd), opts.site);
      const own = await dataOf(api.GET('/api/v1/projects/{id}/sites/{siteId}/env', { params: { path } }));
      if (!opts.effective) {
        if (opts.json) return printJson(own);
        const names = Object.keys(own.vars).sort();
        if (names.length === 0) return say(`Site ${site.slug} has no user-set variables.`);
        return printTable(
          ['NAME', 'VALUE'],
          names.map((n) => [n, own.vars[n] ?? '']),
        );
      }
      const all = await dataOf(
        api.GET('/api/v1/projects/{id}/sites/{siteId}/env/effective', { params: { path } }),
      );
      const rows = Object.keys(all.vars)
        .sort()
        .map((n) => ({ name: n, source: n in own.vars && own.vars[n] === all.vars[n] ? 'user' : 'derived' }));
      if (opts.json) return printJson({ names: rows });
      printTable(
        ['NAME', 'SOURCE'],
        rows.map((r) => [r.name, r.source]),
      );
    });

  env
    .command('get')
    .description(
      'print the value the app is handed for one variable (derived ones included); exit 1 if unset',
    )
    .argument('<NAME>', 'the variable')
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .addHelpText('after', examples(['tether env get DATABASE_URL', 'psql "$(tether env get DATABASE_URL)"']))
    .action(async (/** @type {string} */ name, /** @type {{ site?: string }} */ opts, cmd) => {
      const { api, site, path } = await sitePath(await contextOf(cmd), opts.site);
      const all = await dataOf(
        api.GET('/api/v1/projects/{id}/sites/{siteId}/env/effective', { params: { path } }),
      );
      const value = all.vars[name];
      if (value === undefined) throw new UsageError(`site ${site.slug} has no variable ${name}`);
      process.stdout.write(`${value}\n`);
    });

  env
    .command('set')
    .description('set user variables (apps get them at their next deploy, env pull or run)')
    .argument('<NAME=VALUE...>', 'one or more assignments')
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--json', 'print the API answer as JSON')
    .addHelpText(
      'after',
      examples(['tether env set LOG_LEVEL=debug FEATURE_X=1', "tether env set GREETING='hello world'"]),
    )
    .action(
      async (/** @type {string[]} */ pairs, /** @type {{ site?: string, json?: boolean }} */ opts, cmd) => {
        const changes = parsePairs(pairs);
        const { api, site, path } = await sitePath(await contextOf(cmd), opts.site);
        const own = await dataOf(api.GET('/api/v1/projects/{id}/sites/{siteId}/env', { params: { path } }));
        const saved = await dataOf(
          api.PUT('/api/v1/projects/{id}/sites/{siteId}/env', {
            params: { path },
            body: { vars: { ...own.vars, ...changes } },
          }),
        );
        if (opts.json) return printJson(saved);
        say(`Set ${Object.keys(changes).sort().join(', ')} on site ${site.slug}.`);
      },
    );

  env
    .command('unset')
    .description('remove user variables')
    .argument('<NAME...>', 'one or more names')
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether env unset LOG_LEVEL']))
    .action(
      async (/** @type {string[]} */ names, /** @type {{ site?: string, json?: boolean }} */ opts, cmd) => {
        const { api, site, path } = await sitePath(await contextOf(cmd), opts.site);
        const own = await dataOf(api.GET('/api/v1/projects/{id}/sites/{siteId}/env', { params: { path } }));
        const missing = names.filter((n) => !(n in own.vars));
        const vars = Object.fromEntries(Object.entries(own.vars).filter(([n]) => !names.includes(n)));
        const saved =
          missing.length === names.length
            ? own
            : await dataOf(
                api.PUT('/api/v1/projects/{id}/sites/{siteId}/env', { params: { path }, body: { vars } }),
              );
        if (opts.json) return printJson(saved);
        for (const n of missing) warn(`${n} is not set on site ${site.slug}`);
        const removed = names.filter((n) => !missing.includes(n));
        if (removed.length > 0) say(`Removed ${removed.join(', ')} from site ${site.slug}.`);
      },
    );

  env
    .command('pull')
    .description("write the site's effective variables (derived ones included) to a local env file")
    .argument('[file]', 'file to write (- for standard output)', '.env')
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--format <format>', "dotenv, json or shell (export NAME='value' lines)", 'dotenv')
    .option('-y, --yes', 'replace a file tether did not write (a copy is kept as <file>.<timestamp>.bak)')
    .option('--json', 'print what was written as JSON (names only)')
    .option(...ALLOW_LOADER_VARS)
    .addHelpText(
      'after',
      `${examples(['tether env pull', 'tether env pull --site web .env.production.local'])}
The file is written with mode 0600 in dotenv syntax that the dotenv package and Node's --env-file
read back exactly, and that a POSIX shell may source (set -a; . ./.env) without executing anything.
A file tether did not write is replaced only with --yes (or when confirmed on a terminal); a
replaced file is kept as <file>.<timestamp>.bak. It holds secrets: keep it out of version control.
Loader variables (NODE_OPTIONS, LD_PRELOAD, PATH, …) are left out, and named, unless --allow-loader-vars.
`,
    )
    .action(
      async (
        /** @type {string} */ file,
        /** @type {{ site?: string, yes?: boolean, json?: boolean, format: string, allowLoaderVars?: boolean }} */ opts,
        cmd,
      ) => {
        const format = parseEnvFormat(opts.format);
        const { api, project, site, path } = await sitePath(await contextOf(cmd), opts.site);
        const [effective, rotating] = await withProgress(`Reading the variables of site ${site.slug}`, () =>
          Promise.all([
            dataOf(api.GET('/api/v1/projects/{id}/sites/{siteId}/env/effective', { params: { path } })),
            rotationsInProgress(api, path),
          ]),
        );
        // On stderr, whatever the output: a secret about to be refused is worth knowing (docs/contract.md §14).
        for (const r of rotating) warn(pulledSecretWarning(r));
        const vars = withoutLoaderVars(effective.vars, opts.allowLoaderVars);
        const header = envFileHeader(
          'env pull',
          `Variables of site ${site.slug} (project ${project}). Secrets: do not commit`,
        );
        if (file === '-') {
          process.stdout.write(formatVars(vars, format, header).text);
          return;
        }
        const written = await writeEnvFile(file, vars, header, { ...opts, format });
        const names = Object.keys(vars).sort();
        if (opts.json) {
          printJson({
            file: written.file,
            backup: written.backup ?? null,
            site: site.slug,
            names,
            dotenv_only: written.dotenvOnly,
          });
          return;
        }
        say(
          `Wrote ${names.length} variable${names.length === 1 ? '' : 's'} of site ${site.slug} to ${written.file}.${written.backup ? ` The previous file is kept as ${written.backup}.` : ''}`,
        );
        if (written.dotenvOnly.length > 0) {
          say(
            `Only dotenv reads ${written.dotenvOnly.join(', ')}: no shell quoting holds ${written.dotenvOnly.length === 1 ? 'that value' : 'those values'} as dotenv does, so a shell sourcing ${written.file} leaves ${written.dotenvOnly.length === 1 ? 'it' : 'them'} unset.`,
          );
        }
      },
    );
}
