// @ts-check
/** `tether projects` and `tether sites`: list and create them, named by slug. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { printJson, printTable, say, withProgress } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import { projectOf, resolveSite } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 */

/** @param {Command} program */
export function registerProjects(program) {
  const projects = program
    .command('projects')
    .description('your projects (list, create)')
    .addHelpText(
      'after',
      examples([
        'tether projects',
        'tether projects create "My Shop"',
        'tether projects create Shop --slug shop-eu',
      ]),
    );
  projects
    .command('ls', { isDefault: true })
    .alias('list')
    .description('list the projects you belong to, with your role')
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const api = (await contextOf(cmd)).api();
      const listing = await dataOf(api.GET('/api/v1/projects'));
      if (opts.json) return printJson(listing);
      if (listing.projects.length === 0) return say('No projects yet: tether projects create <name>');
      printTable(
        ['SLUG', 'NAME', 'ROLE', 'CREATED'],
        listing.projects.map((p) => [p.slug, p.name, p.role ?? '', p.created_at]),
      );
    });
  projects
    .command('create')
    .description('create a project (you become its owner); its slug comes from the name unless given')
    .argument('<name>', "the project's name")
    .option('--slug <slug>', 'the slug (lower-case letters, digits and -)')
    .option('--link', 'also link the working folder to it (tether link)')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ slug?: string, link?: boolean, json?: boolean }} */ opts,
        cmd,
      ) => {
        const api = (await contextOf(cmd)).api();
        const project = await withProgress(`Creating project ${name}`, () =>
          dataOf(api.POST('/api/v1/projects', { body: { name, ...(opts.slug ? { slug: opts.slug } : {}) } })),
        );
        if (opts.json) return printJson(project);
        say(`Created project ${project.slug} ("${project.name}"). Next: tether link ${project.slug}`);
      },
    );
}

/** @param {Command} program */
export function registerSites(program) {
  const sites = program
    .command('sites')
    .description("the project's sites (list, create, delete)")
    .addHelpText(
      'after',
      examples(['tether sites', 'tether sites create web', 'tether sites delete web --yes']),
    );
  sites
    .command('ls', { isDefault: true })
    .alias('list')
    .description("list the project's sites")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const project = projectOf(ctx.settings);
      const listing = await dataOf(
        ctx.api().GET('/api/v1/projects/{id}/sites', { params: { path: { id: project } } }),
      );
      if (opts.json) return printJson(listing);
      if (listing.sites.length === 0)
        return say(`Project ${project} has no sites yet: tether sites create <slug>`);
      printTable(
        ['SLUG', 'CREATED'],
        listing.sites.map((s) => [s.slug, s.created_at]),
      );
    });
  sites
    .command('create')
    .description('create a site (it starts with no connections)')
    .argument('<slug>', "the site's slug (lower-case letters, digits and -)")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {string} */ slug, /** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const project = projectOf(ctx.settings);
      const site = await withProgress(`Creating site ${slug}`, () =>
        dataOf(
          ctx
            .api()
            .POST('/api/v1/projects/{id}/sites', { params: { path: { id: project } }, body: { slug } }),
        ),
      );
      if (opts.json) return printJson(site);
      say(`Created site ${site.slug} in project ${project}.`);
    });
  sites
    .command('delete')
    .description(
      'delete a site with its connections and their credentials (asks first; --yes without a terminal)',
    )
    .argument('<slug>', "the site's slug")
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ slug, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
        const ctx = await contextOf(cmd);
        const api = ctx.api();
        const project = projectOf(ctx.settings);
        const site = await resolveSite(api, ctx.settings, slug);
        await confirm(
          `Delete site ${site.slug} of project ${project}`,
          'Its connections and their credentials go with it.',
          opts,
        );
        const result = await withProgress(`Deleting site ${site.slug}`, () =>
          dataOf(
            api.DELETE('/api/v1/projects/{id}/sites/{siteId}', {
              params: { path: { id: project, siteId: site.id } },
            }),
          ),
        );
        if (opts.json) return printJson(result);
        say(`Deleted site ${site.slug}.`);
      },
    );
}
