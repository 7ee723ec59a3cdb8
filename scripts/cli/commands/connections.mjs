// @ts-check
/** `tether connections`, `tether connect` and `tether disconnect`: a site's connections. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { whereItWent } from '../lib/delivery.mjs';
import { UsageError } from '../lib/errors.mjs';
import { entryOf } from '../lib/kinds.mjs';
import { printJson, printTable, say, withProgress } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import {
  checkLevel,
  kindLabel,
  kindOfWord,
  linkedSite,
  projectOf,
  resolveService,
  resolveSite,
} from '../lib/resolve.mjs';
import { rotationOf, rotationWords, waitForRotation } from '../lib/rotation.mjs';
import { runLocalTunnels } from './local.mjs';

/**
 * A connection command's action: `run` gets the kind, project, site and service its arguments
 * name (resolved through the API) and its options.
 * @template {{ site?: string }} O
 * @param {(named: { kind: import('../lib/types.mjs').Kind } & Awaited<ReturnType<typeof connectionOf>>, opts: O) => Promise<unknown>} run
 */
function onConnection(run) {
  return async (
    /** @type {string} */ kindArg,
    /** @type {string} */ name,
    /** @type {O} */ opts,
    /** @type {import('commander').Command} */ cmd,
  ) => {
    const ctx = await contextOf(cmd);
    const kind = await kindOfWord(ctx, kindArg);
    await run({ kind, ...(await connectionOf(ctx, kind, name, opts.site)) }, opts);
  };
}

/**
 * Command `name` of `program` on one connection: its kind and service name, and --site.
 * @param {import('commander').Command} program
 * @param {string} name
 * @param {string} description
 */
function connectionCommand(program, name, description) {
  return program
    .command(name)
    .description(description)
    .argument('<kind>', 'database, bucket or auth')
    .argument('<name>', "the database's or bucket's name, or the auth app's app_id")
    .option('--site <slug>', 'the site (default: the linked site, or the only one)');
}

/**
 * The project, site and service a connection command names, resolved through the API.
 * @param {Awaited<ReturnType<typeof contextOf>>} ctx
 * @param {import('../lib/types.mjs').Kind} kind
 * @param {string} name
 * @param {string | undefined} siteSlug
 */
async function connectionOf(ctx, kind, name, siteSlug) {
  const api = ctx.api();
  const project = projectOf(ctx.settings);
  const site = await resolveSite(api, ctx.settings, siteSlug);
  const service = await resolveService(api, ctx.settings, kind, name);
  return { api, project, site, service };
}

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/types.mjs').Connection} Connection
 */

/**
 * @param {Connection[]} connections
 * @param {boolean} withSite
 */
function printConnections(connections, withSite) {
  if (connections.length === 0) {
    say('No connections.');
    return;
  }
  const head = [...(withSite ? ['SITE'] : []), 'KIND', 'NAME', 'LEVEL', 'ENV'];
  printTable(
    head,
    connections.map((c) => [
      ...(withSite ? [c.site_slug] : []),
      kindLabel(c.kind),
      c.resource_name,
      c.level,
      c.env_names.join('\n'),
    ]),
  );
}

/** @param {Command} program */
export function registerConnections(program) {
  program
    .command('connections')
    .description("list a site's connections (the linked site or --site), or every connection of the project")
    .option('--site <slug>', 'only this site (default: the linked site, if any)')
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether connections', 'tether connections --site web --json']))
    .action(async (/** @type {{ site?: string, json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const api = ctx.api();
      const project = projectOf(ctx.settings);
      if (opts.site === undefined && linkedSite(ctx.settings) === undefined) {
        const all = await dataOf(
          api.GET('/api/v1/projects/{id}/connections', { params: { path: { id: project } } }),
        );
        if (opts.json) printJson(all);
        else printConnections(all.connections, true);
        return;
      }
      const site = await resolveSite(api, ctx.settings, opts.site);
      const listing = await dataOf(
        api.GET('/api/v1/projects/{id}/sites/{siteId}/connections', {
          params: { path: { id: project, siteId: site.id } },
        }),
      );
      if (opts.json) {
        printJson(listing);
        return;
      }
      say(`Site ${site.slug}:`);
      printConnections(listing.connections, false);
      if (listing.available.length > 0) {
        say('Available to connect:');
        printTable(
          ['KIND', 'NAME', 'LEVELS'],
          listing.available.map((a) => [kindLabel(a.kind), a.resource_name, a.levels.join(', ')]),
        );
      }
    });

  program
    .command('connect')
    .description('connect a service to a site, or change its level; with --local, tunnel the site databases')
    .argument('[kind]', 'database, bucket or auth')
    .argument('[name]', "the database's or bucket's name, or the auth app's app_id")
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('--level <level>', 'database: read-only|connect, bucket: read|read-write, auth: client|admin')
    .option('-y, --yes', 'do not ask before raising an auth app to admin')
    .option('--local', 'open local tunnels to every PostgreSQL database the site is connected to')
    .option('--port <first>', 'with --local: first local port (0 picks free ports)', '15432')
    .option('--out <file>', 'with --local: env file to write', '.env.local')
    .option('--json', 'print the stored connection as JSON')
    .addHelpText(
      'after',
      examples([
        'tether connect database main --site web',
        'tether connect bucket uploads --level read',
        'tether connect auth shop-login --level admin --yes',
        'tether connect --local --site web --port 15432',
      ]),
    )
    .action(
      async (
        /** @type {string | undefined} */ kindArg,
        /** @type {string | undefined} */ name,
        /** @type {{ site?: string, level?: string, yes?: boolean, local?: boolean, port: string,
         *   out: string, json?: boolean }} */ opts,
        cmd,
      ) => {
        const ctx = await contextOf(cmd);
        if (opts.local) {
          if (kindArg !== undefined) throw new UsageError('connect --local takes no kind or name');
          await runLocalTunnels(ctx, { site: opts.site, port: opts.port, out: opts.out, yes: opts.yes });
          return;
        }
        if (kindArg === undefined || name === undefined) {
          throw new UsageError('connect needs a kind and a name (or --local): tether connect database main');
        }
        const kind = await kindOfWord(ctx, kindArg);
        if (opts.level !== undefined) checkLevel(kind, opts.level);
        const { api, project, site, service } = await connectionOf(ctx, kind, name, opts.site);
        const path = { id: project, siteId: site.id };
        const base = '/api/v1/projects/{id}/sites/{siteId}/connections';
        const raise = entryOf(kind).confirm;
        if (raise && opts.level === raise.level && !opts.yes) {
          const current = await dataOf(api.GET(base, { params: { path } }));
          const now = current.connections.find((c) => c.kind === kind && c.resource_id === service.id);
          if (now?.level !== raise.level)
            await confirm(raise.what(service.name, site.slug), raise.detail, opts);
        }
        const connection = await withProgress(
          `Connecting ${kindLabel(kind)} ${service.name} to site ${site.slug}`,
          () =>
            dataOf(
              api.POST(base, {
                params: { path },
                // checkLevel above made the level one of the kind's.
                body: /** @type {import('../lib/api.mjs').BodyOf<'postProjectsByIdSitesBySiteIdConnections'>} */ ({
                  kind,
                  resource_id: service.id,
                  ...(opts.level !== undefined ? { level: opts.level } : {}),
                }),
              }),
            ),
        );
        if (opts.json) {
          printJson(connection);
          return;
        }
        say(
          `Connected ${kindLabel(kind)} ${connection.resource_name} to site ${site.slug} at level ${connection.level}.`,
        );
        say(`Variables: ${connection.env_names.join(', ') || 'none'}`);
        say(await whereItWent(api, path, site.slug));
      },
    );

  connectionCommand(
    program,
    'promote',
    "give a connection its family's plain names (DATABASE_URL, MONGODB_URI, STORAGE_*, SERVICE_AUTH_*)",
  )
    .option('--json', 'print the API answer as JSON')
    .addHelpText('after', examples(['tether promote database analytics --site web']))
    .action(
      onConnection(
        async (
          { kind, api, project, site, service },
          /** @type {{ site?: string, json?: boolean }} */ opts,
        ) => {
          const result = await dataOf(
            api.POST('/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/promote', {
              params: { path: { id: project, siteId: site.id, kind, resourceId: service.id } },
            }),
          );
          if (opts.json) return printJson(result);
          say(`${kindLabel(kind)} ${service.name} now holds the plain names on site ${site.slug}.`);
        },
      ),
    );

  connectionCommand(
    program,
    'disconnect',
    'disconnect a service from a site (asks first; --yes without a terminal)',
  )
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .addHelpText(
      'after',
      examples(['tether disconnect database main --site web', 'tether disconnect auth shop-login --yes']),
    )
    .action(
      onConnection(
        async (
          { kind, api, project, site, service },
          /** @type {{ site?: string, yes?: boolean, json?: boolean }} */ opts,
        ) => {
          await confirm(
            `Disconnect ${kindLabel(kind)} ${service.name} from site ${site.slug}`,
            "Its variables are unset at the site's delivery target and its own credential stops working.",
            opts,
          );
          const path = { id: project, siteId: site.id, kind, resourceId: service.id };
          const result = await withProgress(
            `Disconnecting ${kindLabel(kind)} ${service.name} from site ${site.slug}`,
            () =>
              dataOf(
                api.DELETE('/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}', {
                  params: { path },
                }),
              ),
          );
          if (opts.json) printJson(result);
          else if (result.removed)
            say(
              `Disconnected ${kindLabel(kind)} ${service.name} from site ${site.slug}. ${await whereItWent(api, path, site.slug)}`,
            );
          else
            say(
              `${kindLabel(kind)} ${service.name} was not connected to site ${site.slug}; nothing changed.`,
            );
        },
      ),
    );

  program
    .command('rotate')
    .description(
      "give a site's connection to a database or bucket a new credential secret (sent to the site's delivery target)",
    )
    .argument('<kind>', 'database or bucket')
    .argument('<name>', "the database's or bucket's name")
    .option('--site <slug>', 'the site (default: the linked site, or the only one)')
    .option('-y, --yes', 'accepted as by every command that may ask (rotate asks nothing)')
    .option(
      '--immediate',
      'refuse the old secret at once (for a leaked one): running apps fail until they get the new one',
    )
    .option(
      '--grace <seconds>',
      'the latest the old secret works, in seconds from now (0 to 86400; default ROTATION_GRACE_SECONDS)',
    )
    .option(
      '--no-wait',
      'return once the rotation has started instead of waiting until the old secret is retired',
    )
    .option('--json', 'print the outcome as JSON')
    .addHelpText(
      'after',
      examples([
        'tether rotate database main',
        'tether rotate bucket uploads --site web --no-wait',
        'tether rotate database main --immediate',
        'tether rotate database main --grace 600',
      ]),
    )
    .action(
      async (
        /** @type {string} */ kindArg,
        /** @type {string} */ name,
        /** @type {{ site?: string, json?: boolean, immediate?: boolean, grace?: string, wait: boolean }} */ opts,
        cmd,
      ) => {
        const ctx = await contextOf(cmd);
        const kind = await kindOfWord(ctx, kindArg);
        const { rotates, noun } = entryOf(kind);
        if (!rotates)
          throw new UsageError(
            `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun} connection has no credential to rotate`,
          );
        const { api, project, site, service } = await connectionOf(ctx, kind, name, opts.site);
        const path = { id: project, siteId: site.id, kind, resourceId: service.id };
        await withProgress(
          `Rotating the credential of site ${site.slug} for ${kindLabel(kind)} ${service.name}`,
          () =>
            dataOf(
              api.POST('/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate', {
                params: {
                  path,
                  query: {
                    ...(opts.immediate ? { immediate: 'true' } : {}),
                    // Sent as typed: the API says what it takes (a whole number from 0 to 86400).
                    ...(opts.grace === undefined
                      ? {}
                      : { grace_seconds: /** @type {number} */ (/** @type {unknown} */ (opts.grace)) }),
                  },
                },
              }),
            ),
        );
        const where = await whereItWent(api, path, site.slug);
        // Waiting only helps where the patch can become live: without a target it drains to its deadline.
        const waits = opts.wait && !opts.immediate && !opts.json && !/no delivery target/.test(where);
        const rotation = waits
          ? await waitForRotation(api, path, (r) => say(`  ${rotationWords(r)}`))
          : await rotationOf(api, path);
        if (opts.json) printJson({ rotated: true, site: site.slug, kind, name: service.name, rotation });
        else {
          const old = opts.immediate
            ? 'The old secret is refused from now on.'
            : rotation.state === 'done'
              ? 'The old secret is retired.'
              : `The old secret stays valid until the new one is live and unused by old sessions (${rotationWords(rotation)}); GET …/connections/${kind}/${service.name}/rotation shows the state.`;
          say(
            `Rotated the credential of site ${site.slug} for ${kindLabel(kind)} ${service.name}. ${old} ${where}`,
          );
        }
      },
    );
}
