// @ts-check
/** `tether db create|ls|stop|start|delete` and `tether bucket create|ls|delete`. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { catalogOf, orList } from '../lib/kinds.mjs';
import { printJson, printTable, say, withProgress } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/context.mjs').Context} Context
 */

/**
 * The project's path parameters and the API client.
 * @param {Command} cmd
 */
async function projectScope(cmd) {
  const ctx = await contextOf(cmd);
  const project = projectOf(ctx.settings);
  return { ctx, api: ctx.api(), project, path: { id: project } };
}

/** @typedef {import('../../../types/api.js').operations['postProjectsByIdDatabases']['requestBody']['content']['application/json']} NewDatabase */

/**
 * Adds `db create|ls|stop|start|delete` to the `db` command.
 * @param {Command} db
 */
export function registerDatabaseCommands(db) {
  db.command('create')
    .description('create a database (connected at once when the project has exactly one site)')
    .argument('<name>', "the database's name (lower-case letters, digits and _)")
    .option(
      '--engine <engine>',
      'postgresql, mongodb or another engine the deployment offers (default: its first)',
    )
    .option('--standalone', 'mongodb: a standalone server rather than a replica set')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether db create main', 'tether db create events --engine mongodb']))
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ engine?: string, standalone?: boolean, json?: boolean }} */ opts,
        cmd,
      ) => {
        const { api, project, path } = await projectScope(cmd);
        const offered = (await catalogOf(api)).engines;
        const engine = offered.find((e) =>
          opts.engine === undefined ? e.default : e.engine === opts.engine,
        )?.engine;
        if (!engine)
          throw new UsageError(
            `unknown engine "${opts.engine}": use ${orList(offered.map((e) => e.engine))}`,
          );
        const created = await withProgress(`Creating database ${name}`, () =>
          dataOf(
            api.POST('/api/v1/projects/{id}/databases', {
              params: { path },
              // The server's registry names the engines (GET /api/v1/kinds); the generated enum is today's.
              body: /** @type {NewDatabase} */ ({
                name,
                engine,
                ...(opts.standalone ? { replica_set: false } : {}),
              }),
            }),
          ),
        );
        if (opts.json) return printJson(created);
        say(`Created ${created.engine} database ${created.name} in project ${project}.`);
      },
    );

  db.command('list')
    .alias('ls')
    .description("list the project's databases")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const { api, project, path } = await projectScope(cmd);
      const listing = await dataOf(api.GET('/api/v1/projects/{id}/databases', { params: { path } }));
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
        const { ctx, api, path } = await projectScope(cmd);
        const database = await resolveService(api, ctx.settings, 'database', name);
        const params = { path: { ...path, dbId: database.id } };
        const after = await withProgress(`${gerund} database ${database.name}`, () =>
          dataOf(
            verb === 'stop'
              ? api.POST('/api/v1/projects/{id}/databases/{dbId}/stop', { params })
              : api.POST('/api/v1/projects/{id}/databases/{dbId}/start', { params }),
          ),
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
        const { ctx, api, project, path } = await projectScope(cmd);
        const database = await resolveService(api, ctx.settings, 'database', name);
        await confirm(
          `Delete database ${database.name} of project ${project}`,
          'Its data and every connection to it are gone for good.',
          opts,
        );
        const result = await withProgress(`Deleting database ${database.name}`, () =>
          dataOf(
            api.DELETE('/api/v1/projects/{id}/databases/{dbId}', {
              params: { path: { ...path, dbId: database.id } },
            }),
          ),
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
        const { api, project, path } = await projectScope(cmd);
        const created = await withProgress(`Creating bucket ${name}`, () =>
          dataOf(
            api.POST('/api/v1/projects/{id}/buckets', {
              params: { path },
              body: { name, ...(opts.region ? { region: opts.region } : {}) },
            }),
          ),
        );
        if (opts.json) return printJson(created);
        say(`Created bucket ${created.name} (${created.region}) in project ${project}.`);
      },
    );

  bucket
    .command('list')
    .alias('ls')
    .description("list the project's buckets")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const { api, project, path } = await projectScope(cmd);
      const listing = await dataOf(api.GET('/api/v1/projects/{id}/buckets', { params: { path } }));
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
        const { ctx, api, project, path } = await projectScope(cmd);
        const found = await resolveService(api, ctx.settings, 'bucket', name);
        await confirm(
          `Delete bucket ${found.name} of project ${project}`,
          'Every connection and key to it is removed.',
          opts,
        );
        const result = await withProgress(`Deleting bucket ${found.name}`, () =>
          dataOf(
            api.DELETE('/api/v1/projects/{id}/buckets/{bucketId}', {
              params: { path: { ...path, bucketId: found.id } },
            }),
          ),
        );
        if (opts.json) return printJson(result);
        say(`Deleted bucket ${found.name}.`);
      },
    );
}
