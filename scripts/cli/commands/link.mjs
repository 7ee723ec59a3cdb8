// @ts-check
/** `tether link <project> [--site <slug>]`: ties the working folder to a project (and site). */
import { dataOf } from '../lib/api.mjs';
import { writeLink } from '../lib/config.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { printJson, say } from '../lib/output.mjs';
import { resolveSite } from '../lib/resolve.mjs';

/** @typedef {import('commander').Command} Command */

/** @param {Command} program */
export function registerLink(program) {
  program
    .command('link')
    .description('link the working folder to a project (and a default site) in .tether/project.json')
    .argument('<project>', 'project slug or id')
    .option('--site <slug>', 'default site for later commands')
    .option('--json', 'print the link as JSON')
    .addHelpText('after', examples(['tether link my-shop', 'tether link my-shop --site web']))
    .action(
      async (
        /** @type {string} */ projectArg,
        /** @type {{ site?: string, json?: boolean }} */ opts,
        cmd,
      ) => {
        // The link being replaced is not read: a broken one must not stop its own repair.
        const ctx = await contextOf(cmd, { readLink: false });
        const api = ctx.api();
        const project = await dataOf(
          api.GET('/api/v1/projects/{id}', { params: { path: { id: projectArg } } }),
        );
        const link = { project_id: project.id, project_slug: project.slug };
        let siteSlug;
        if (opts.site !== undefined) {
          const settings = { ...ctx.settings, project: project.id, link: undefined };
          siteSlug = (await resolveSite(api, settings, opts.site)).slug;
        }
        const file = await writeLink(process.cwd(), {
          ...link,
          ...(siteSlug ? { site_slug: siteSlug } : {}),
        });
        if (opts.json) printJson({ ...link, site_slug: siteSlug ?? null, file });
        else
          say(`Linked ${process.cwd()} to project ${project.slug}${siteSlug ? `, site ${siteSlug}` : ''}.`);
      },
    );
}
