// @ts-check
/** `tether db create|ls|stop|start|delete` and `tether bucket create|ls|delete`. */
import { seg } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, printTable, say, withProgress } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/context.mjs').Context} Context
 * @typedef {import('../lib/types.mjs').Database} Database
 * @typedef {import('../lib/types.mjs').Bucket} Bucket
 */

/**
 * The project's base path and the API client.
 * @param {Command} cmd
 */
async function projectScope(cmd) {
  const ctx = await contextOf(cmd);
  const project = projectOf(ctx.settings);
  return { ctx, api: ctx.api(), project, base: `/api/v1/projects/${seg(project)}` };
}

/**
 * Adds `db create|ls|stop|start|delete` to the `db` command.
 * @param {Command} db
 */
export function registerDatabaseCommands(db) {
  db.command('create')
    .description('create a database (connected at once when the project has exactly one site)')
    .argument('<name>', "the database's name (lower-case letters, digits and _)")
    .option('--engine <engine>', 'postgresql or mongodb', 'postgresql')
    .option('--standalone', 'mongodb: a standalone server rather than a replica set')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether db create main', 'tether db create events --engine mongodb']))
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ engine: string, standalone?: boolean, json?: boolean }} */ opts,
        cmd,
      ) => {
        if (opts.engine !== 'postgresql' && opts.engine !== 'mongodb') {
          throw new UsageError(`unknown engine "${opts.engine}": use postgresql or mongodb`);
        }
        const { api, project, base } = await projectScope(cmd);
        /** @type {Database} */
        const created = await withProgress(`Creating database ${name}`, () =>
          api.post(`${base}/databases`, {
            name,
            engine: opts.engine,
            ...(opts.standalone ? { replica_set: false } : {}),
          }),
        );
        if (opts.json) return printJson(created);
        say(`Created ${created.engine} database ${created.name} in project ${project}.`);
      },
    );

  db.command('ls')
    .description("list the project's databases")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const { api, project, base } = await projectScope(cmd);
      /** @type {{ databases: Database[] }} */
      const listing = await api.get(`${base}/databases`);
      if (opts.json) return printJson(listing);
      if (listing.databases.length === 0)
        return say(`Project ${project} has no databases: tether db create <name>`);
      printTable(
        ['NAME', 'ENGINE', 'STATUS'],
        listing.databases.map((d) => [d.name, d.engine, d.status]),
      );
    });

  for (const [verb, gerund, what] of /** @type {const} */ ([
    ['stop', 'Stopping', 'refuse new logins until started again'],
    ['start', 'Starting', 'accept logins again'],
  ])) {
    db.command(verb)
      .description(`${verb} a database (${what})`)
      .argument('<name>', "the database's name")
      .option('--json', 'print the API answer as JSON')
      .action(async (/** @type {string} */ name, /** @type {{ json?: boolean }} */ opts, cmd) => {
        const { ctx, api, base } = await projectScope(cmd);
        const database = await resolveService(api, ctx.settings, 'database', name);
        /** @type {Database} */
        const after = await withProgress(`${gerund} database ${database.name}`, () =>
          api.post(`${base}/databases/${seg(database.id)}/${verb}`),
        );
        if (opts.json) return printJson(after);
        say(`Database ${after.name} is ${after.status}.`);
      });
  }

  db.command('delete')
    .description('delete a database and its connections (asks first; --yes without a terminal)')
    .argument('<name>', "the database's name")
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ name, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
        const { ctx, api, project, base } = await projectScope(cmd);
        const database = await resolveService(api, ctx.settings, 'database', name);
        await confirm(
          `Delete database ${database.name} of project ${project}`,
          'Its data and every connection to it are gone for good.',
          opts,
        );
        /** @type {{ deleted: boolean }} */
        const result = await withProgress(`Deleting database ${database.name}`, () =>
          api.del(`${base}/databases/${seg(database.id)}`),
        );
        if (opts.json) return printJson(result);
        say(`Deleted database ${database.name}.`);
      },
    );
}

/** @param {Command} program */
export function registerBucket(program) {
  const bucket = program
    .command('bucket')
    .description('storage buckets (create, list, delete)')
    .addHelpText(
      'after',
      examples(['tether bucket create uploads', 'tether bucket ls', 'tether bucket delete uploads --yes']),
    );

  bucket
    .command('create')
    .description('create a bucket (connected at once when the project has exactly one site)')
    .argument('<name>', "the bucket's name")
    .option('--region <region>', 'the region (default: the platform default)')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ name, /** @type {{ region?: string, json?: boolean }} */ opts, cmd) => {
        const { api, project, base } = await projectScope(cmd);
        /** @type {Bucket} */
        const created = await withProgress(`Creating bucket ${name}`, () =>
          api.post(`${base}/buckets`, { name, ...(opts.region ? { region: opts.region } : {}) }),
        );
        if (opts.json) return printJson(created);
        say(`Created bucket ${created.name} (${created.region}) in project ${project}.`);
      },
    );

  bucket
    .command('ls')
    .description("list the project's buckets")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const { api, project, base } = await projectScope(cmd);
      /** @type {{ buckets: Bucket[] }} */
      const listing = await api.get(`${base}/buckets`);
      if (opts.json) return printJson(listing);
      if (listing.buckets.length === 0)
        return say(`Project ${project} has no buckets: tether bucket create <name>`);
      printTable(
        ['NAME', 'REGION'],
        listing.buckets.map((b) => [b.name, b.region]),
      );
    });

  bucket
    .command('delete')
    .description(
      'delete a bucket and its keys (asks first; --yes without a terminal); its objects stay at the provider',
    )
    .argument('<name>', "the bucket's name")
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ name, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
        const { ctx, api, project, base } = await projectScope(cmd);
        const found = await resolveService(api, ctx.settings, 'bucket', name);
        await confirm(
          `Delete bucket ${found.name} of project ${project}`,
          'Every connection and key to it is removed.',
          opts,
        );
        /** @type {{ deleted: boolean }} */
        const result = await withProgress(`Deleting bucket ${found.name}`, () =>
          api.del(`${base}/buckets/${seg(found.id)}`),
        );
        if (opts.json) return printJson(result);
        say(`Deleted bucket ${found.name}.`);
      },
    );
}
