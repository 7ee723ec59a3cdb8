// @ts-check
/**
 * Where the tool keeps its settings: the user's login in the config folder (XDG_CONFIG_HOME,
 * else ~/.config) and the working folder's link in `.tether/project.json`. Environment
 * variables TETHER_TOKEN, TETHER_API_URL and TETHER_PROJECT override both.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from './errors.mjs';
import { writePrivateFile } from './files.mjs';

/** Where `npm start` serves the API by default. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8787';

/**
 * @typedef {{ api_url?: string, token?: string }} StoredConfig
 * @typedef {{ project_id: string, project_slug: string, site_slug?: string }} ProjectLink
 * @typedef {{ apiUrl: string, token: string | undefined, project: string | undefined,
 *   link: (ProjectLink & { file: string }) | undefined }} Settings
 */

/**
 * The config file: `$XDG_CONFIG_HOME/tether/config.json`, else `~/.config/tether/config.json`
 * (a relative XDG_CONFIG_HOME is ignored, as the XDG specification says).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function configPath(env = process.env) {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config');
  return join(base, 'tether', 'config.json');
}

/** What to do about a link file that names no project, said by every command that meets one. */
const RELINK = 'run tether link <project> again';

/**
 * @param {string} file
 * @param {string} remedy what to do when the file is not JSON
 * @returns {Promise<unknown>} the parsed JSON, or undefined when the file does not exist
 */
async function readJson(file, remedy) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${file}: ${/** @type {Error} */ (err).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON; ${remedy}`);
  }
}

/** @returns {Promise<StoredConfig>} */
export async function readConfig() {
  const data = await readJson(configPath(), 'fix or delete it');
  if (data === undefined) return {};
  if (typeof data !== 'object' || data === null) throw new UsageError(`${configPath()} is not a JSON object`);
  const { api_url, token } = /** @type {Record<string, unknown>} */ (data);
  return {
    ...(typeof api_url === 'string' ? { api_url } : {}),
    ...(typeof token === 'string' ? { token } : {}),
  };
}

/**
 * Stores the login readable only by the user (folder 0700, file 0600).
 * @param {StoredConfig} config
 */
export async function writeConfig(config) {
  await writePrivateFile(configPath(), `${JSON.stringify(config, null, 2)}\n`, { dirMode: 0o700 });
}

/**
 * The nearest `.tether/project.json` from `cwd` upwards, like git finds its folder.
 * @param {string} cwd
 * @returns {Promise<(ProjectLink & { file: string }) | undefined>}
 */
export async function findLink(cwd) {
  let dir = resolve(cwd);
  for (;;) {
    const file = join(dir, '.tether', 'project.json');
    const data = await readJson(file, RELINK);
    if (data !== undefined) {
      // Any JSON may be there (null, a list, a string): only an object naming a project is a link.
      const link = /** @type {Partial<ProjectLink>} */ (
        typeof data === 'object' && data !== null ? data : {}
      );
      if (typeof link.project_id !== 'string' || typeof link.project_slug !== 'string') {
        throw new UsageError(`${file} does not name a project; ${RELINK}`);
      }
      return {
        file,
        project_id: link.project_id,
        project_slug: link.project_slug,
        ...(typeof link.site_slug === 'string' ? { site_slug: link.site_slug } : {}),
      };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Writes `.tether/project.json` in `cwd`.
 * @param {string} cwd
 * @param {ProjectLink} link
 * @returns {Promise<string>} the file written
 */
export async function writeLink(cwd, link) {
  const file = join(resolve(cwd), '.tether', 'project.json');
  await writePrivateFile(file, `${JSON.stringify(link, null, 2)}\n`);
  return file;
}

/**
 * Checks an API base URL and drops trailing slashes.
 * @param {string} url
 */
export function normaliseApiUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`the API URL must be http or https: ${url}`);
  }
  return parsed.toString().replace(/\/+$/, '');
}

/**
 * Everything a command needs to know, by precedence: command-line flag, environment variable,
 * working folder's link (project only), stored login, default.
 * @param {{ project?: string }} flags
 * @param {{ readLink?: boolean }} [opts] readLink false: `tether link`, which replaces the link
 *   and so must work when the one there is broken
 * @returns {Promise<Settings>}
 */
export async function loadSettings(flags, opts = {}) {
  const env = process.env;
  const stored = await readConfig();
  const link = opts.readLink === false ? undefined : await findLink(process.cwd());
  return {
    apiUrl: normaliseApiUrl(env.TETHER_API_URL || stored.api_url || DEFAULT_API_URL),
    token: env.TETHER_TOKEN || stored.token,
    // The slug, so that messages name the project as people know it (the API takes either).
    project: flags.project || env.TETHER_PROJECT || link?.project_slug,
    link,
  };
}
