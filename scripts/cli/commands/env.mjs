// @ts-check
/** `tether env pull [file]`: the site's effective variables in a local env file. */
import { seg } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { writeEnvFile } from '../lib/env-file.mjs';
import { printJson, say } from '../lib/output.mjs';
import { projectOf, resolveSite } from '../lib/resolve.mjs';

/** @typedef {import('commander').Command} Command */

/** @param {Command} program */
export function registerEnv(program) {
  const env = program
    .command('env')
    .description("a site's variables")
    .addHelpText('after', examples(['tether env pull', 'tether env pull --site web .env.local']));
  env
    .command('pull')
    .description("write the site's effective variables (derived ones included) to a local env file")
    .argument('[file]', 'file to write', '.env')
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--json', 'print what was written as JSON (names only)')
    .addHelpText(
      'after',
      `${examples(['tether env pull', 'tether env pull --site web .env.production.local'])}
The file is written with mode 0600 in dotenv syntax that the dotenv package reads back exactly.
It holds secrets: keep it out of version control (a warning says so when git would not ignore it).
`,
    )
    .action(
      async (/** @type {string} */ file, /** @type {{ site?: string, json?: boolean }} */ opts, cmd) => {
        const ctx = await contextOf(cmd);
        const api = ctx.api();
        const project = projectOf(ctx.settings);
        const site = await resolveSite(api, ctx.settings, opts.site);
        /** @type {{ vars: Record<string, string> }} */
        const { vars } = await api.get(
          `/api/v1/projects/${seg(project)}/sites/${seg(site.id)}/env/effective`,
        );
        const written = await writeEnvFile(file, vars, [
          `Variables of site ${site.slug} (project ${project}), written by tether env pull. Secrets: do not commit.`,
        ]);
        const names = Object.keys(vars).sort();
        if (opts.json) printJson({ file: written, site: site.slug, names });
        else
          say(
            `Wrote ${names.length} variable${names.length === 1 ? '' : 's'} of site ${site.slug} to ${written}.`,
          );
      },
    );
}
