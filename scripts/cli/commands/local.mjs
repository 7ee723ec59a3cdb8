// @ts-check
/**
 * `tether connect --local`: a local port per PostgreSQL database the site is connected to,
 * tunnelled through the API, and a local env file whose database URLs point at those ports.
 */
import { dataOf } from '../lib/api.mjs';
import { envFileHeader, writeEnvFile } from '../lib/env-file.mjs';
import { ApiRefusal, UsageError } from '../lib/errors.mjs';
import { catalogOf, orList } from '../lib/kinds.mjs';
import { printTable, say, warn } from '../lib/output.mjs';
import { listServices, projectOf, resolveSite } from '../lib/resolve.mjs';
import { listen, localDatabaseUrl, wsUrlOf } from '../lib/tunnel.mjs';

/**
 * @typedef {import('../lib/context.mjs').Context} Context
 * @typedef {import('../lib/tunnel.mjs').Listener} Listener
 */

/**
 * @param {string} text
 * @returns {number}
 */
function parsePort(text) {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`not a port: ${text}`);
  return port;
}

/**
 * Resolves once SIGINT or SIGTERM arrives.
 * @returns {Promise<void>}
 */
function untilStopped() {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * Opens the tunnels, writes the env file and runs until Ctrl-C.
 * @param {Context} ctx
 * @param {{ site?: string, port: string, out: string, yes?: boolean }} opts
 */
export async function runLocalTunnels(ctx, opts) {
  const first = parsePort(opts.port);
  const api = ctx.api();
  const project = projectOf(ctx.settings);
  const site = await resolveSite(api, ctx.settings, opts.site);
  const sitePath = { id: project, siteId: site.id };
  const { connections } = await dataOf(
    api.GET('/api/v1/projects/{id}/sites/{siteId}/connections', { params: { path: sitePath } }),
  );
  const engines = new Map((await listServices(api, project, 'database')).map((d) => [d.id, d.engine]));
  const tunnelled = (await catalogOf(api)).engines.filter((e) => e.tunnel);
  const tunnelledWords = orList(tunnelled.map((e) => e.label));
  const databases = [];
  for (const c of connections.filter((x) => x.kind === 'database')) {
    if (tunnelled.some((e) => e.engine === engines.get(c.resource_id))) databases.push(c);
    else
      warn(
        `database ${c.resource_name} is not ${tunnelledWords}; only ${tunnelledWords} databases are tunnelled`,
      );
  }
  if (databases.length === 0)
    throw new UsageError(`site ${site.slug} is connected to no ${tunnelledWords} database`);

  // Ask the API once per database before listening, so a refusal (role, connection) is reported now.
  for (const c of databases) {
    // The tunnel's plain GET answers 426 (upgrade to a WebSocket) when the caller may open it.
    const refused = await api
      .GET('/api/v1/projects/{id}/sites/{siteId}/tunnel/{dbId}', {
        params: { path: { ...sitePath, dbId: c.resource_id } },
      })
      .then(
        () => undefined,
        (/** @type {unknown} */ err) => err,
      );
    if (!(refused instanceof ApiRefusal && refused.status === 426)) throw refused;
  }
  const { vars } = await dataOf(
    api.GET('/api/v1/projects/{id}/sites/{siteId}/env/effective', { params: { path: sitePath } }),
  );

  /** @type {Listener[]} */
  const listeners = [];
  const stopAll = () => Promise.all(listeners.map((l) => l.close()));
  try {
    const rows = [];
    for (const [i, c] of databases.entries()) {
      const listener = await listen(first === 0 ? 0 : first + i, {
        wsUrl: wsUrlOf(
          api.apiUrl,
          `/api/v1/projects/${encodeURIComponent(project)}/sites/${site.id}/tunnel/${c.resource_id}`,
        ),
        token: api.token,
        onProblem: (message) => warn(`${c.resource_name}: ${message}`),
      });
      listeners.push(listener);
      const rewritten = [];
      for (const name of c.env_names) {
        const local = vars[name] === undefined ? undefined : localDatabaseUrl(vars[name], listener.port);
        if (local !== undefined) {
          vars[name] = local;
          rewritten.push(name);
        }
      }
      rows.push([c.resource_name, `127.0.0.1:${listener.port}`, rewritten.join('\n')]);
    }
    const written = await writeEnvFile(
      opts.out,
      vars,
      envFileHeader(
        'connect --local',
        `Variables of site ${site.slug} (project ${project}) for local work; database URLs point at tunnels open while it runs. Secrets: do not commit`,
      ),
      { yes: opts.yes },
    );
    printTable(['DATABASE', 'LOCAL ADDRESS', 'VARIABLES'], rows);
    say(`Wrote ${written.file}. Tunnels are open; press Ctrl-C to stop.`);
    await untilStopped();
  } finally {
    await stopAll();
  }
  say('Tunnels closed.');
}
