// @ts-check
/** `tether db sites <db> [--add <site>]`: the older per-service route GET/PUT /databases/:id/sites. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { printJson, printTable, say } from '../lib/output.mjs';
import { resolveService, resolveSite } from '../lib/resolve.mjs';
import { registerDbCredentials } from './access.mjs';
import { registerDatabaseCommands } from './services.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/types.mjs').ServiceSite} ServiceSite
 */

/** @param {ServiceSite[]} sites */
function printSites(sites) {
  if (sites.length === 0) {
    say('No sites.');
    return;
  }
  printTable(
    ['SITE', 'LEVEL', 'ENV'],
    sites.map((s) => [s.site_slug, s.level, s.env_names.join('\n')]),
  );
}

/** @param {Command} program */
export function registerDb(program) {
  const db = program
    .command('db')
    .description('databases (create, list, stop, start, delete, their sites)')
    .addHelpText(
      'after',
      examples([
        'tether db create main',
        'tether db ls',
        'tether db stop main',
        'tether db sites main --add admin-panel',
      ]),
    );
  registerDatabaseCommands(db);
  registerDbCredentials(db);
  db.command('sites')
    .description('list the sites a database is connected to, or add one at the default level')
    .argument('<db>', "the database's name")
    .option('--add <site>', 'connect this site (slug) at the default level, keeping the others')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether db sites main', 'tether db sites main --add admin-panel']))
    .action(async (/** @type {string} */ name, /** @type {{ add?: string, json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const api = ctx.api();
      const database = await resolveService(api, ctx.settings, 'database', name);
      const params = { path: { id: database.id } };
      let listing = await dataOf(api.GET('/api/v1/databases/{id}/sites', { params }));
      if (opts.add !== undefined) {
        const site = await resolveSite(api, ctx.settings, opts.add);
        if (listing.sites.some((s) => s.site_id === site.id)) {
          if (!opts.json)
            say(`Site ${site.slug} is already connected to database ${database.name}; nothing changed.`);
        } else {
          // The route takes the full set: everyone already there keeps their level, the new site gets the default.
          // The levels read back are the database's own.
          const sites = /** @type {import('../lib/api.mjs').BodyOf<'putDatabasesByIdSites'>['sites']} */ ([
            ...listing.sites.map((s) => ({ site_id: s.site_id, level: s.level })),
            { site_id: site.id },
          ]);
          listing = await dataOf(api.PUT('/api/v1/databases/{id}/sites', { params, body: { sites } }));
          if (!opts.json) say(`Connected site ${site.slug} to database ${database.name}.`);
        }
      }
      if (opts.json) printJson(listing);
      else printSites(listing.sites);
    });
}
