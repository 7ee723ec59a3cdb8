// @ts-check
/**
 * Names to ids: the project (flag, TETHER_PROJECT or link), sites by slug and services by
 * name, through the API's list routes (for a kind the server offers and the tool has no row for,
 * the route the catalog names). An unknown name is a usage error listing the known ones.
 */
import { dataOf } from './api.mjs';
import { UsageError } from './errors.mjs';
import {
  catalogOf,
  entryOf,
  findEntry,
  KIND_LIST,
  KINDS,
  kindNamed,
  kindServedAs,
  orList,
} from './kinds.mjs';

/**
 * @typedef {import('./api.mjs').Api} Api
 * @typedef {import('./config.mjs').Settings} Settings
 * @typedef {import('./types.mjs').Kind} Kind
 * @typedef {import('./types.mjs').Site} Site
 * @typedef {import('./types.mjs').Service} Service
 */

/**
 * The API's kind for a kind as typed on the command line (`auth` is `auth_app`).
 * @param {string} word
 * @returns {Kind}
 */
export function parseKind(word) {
  const kind = kindNamed(word);
  if (!kind) throw new UsageError(`unknown kind "${word}": use ${orList(KIND_LIST.map(kindLabel))}`);
  return kind;
}

/**
 * The API's kind for a kind as typed on the command line: one of the tool's own, else one the
 * server offers (GET /api/v1/kinds, read only for a word the tool does not know, and only signed in).
 * @param {{ api(): Api }} ctx
 * @param {string} word
 * @returns {Promise<Kind>}
 */
export async function kindOfWord(ctx, word) {
  const own = kindNamed(word);
  if (own) return own;
  /** @type {import('./kinds.mjs').ServedKind[]} */
  let catalog = [];
  try {
    catalog = (await catalogOf(ctx.api())).kinds;
  } catch {
    // Not signed in, or the server is away: the tool's own kinds are all it knows.
  }
  const served = kindServedAs(catalog, word);
  if (served) return served;
  const offered = catalog.filter((k) => !(k.kind in KINDS)).map((k) => k.command_words[0] ?? k.kind);
  throw new UsageError(`unknown kind "${word}": use ${orList([...KIND_LIST.map(kindLabel), ...offered])}`);
}

/**
 * How the tool shows a kind: a kind the server registered that the tool has no entry for is shown
 * by the name the API gives it.
 * @param {string} kind
 */
export const kindLabel = (kind) => findEntry(kind)?.label ?? kind;

/**
 * Checks `level` is one of the kind's two levels.
 * @param {Kind} kind
 * @param {string} level
 */
export function checkLevel(kind, level) {
  const levels = entryOf(kind).levels;
  if (!levels.includes(level)) {
    throw new UsageError(`level "${level}" is not a level of ${kindLabel(kind)}: use ${levels.join(' or ')}`);
  }
}

/**
 * The project to work on, as the API accepts it (id or slug).
 * @param {Settings} settings
 */
export function projectOf(settings) {
  if (settings.project) return settings.project;
  throw new UsageError('no project: run `tether link <project>` here, pass --project, or set TETHER_PROJECT');
}

/**
 * The linked site's slug, when the link names one and is for the project being worked on.
 * @param {Settings} settings
 */
export function linkedSite(settings) {
  const { link, project } = settings;
  if (!link || (project !== link.project_id && project !== link.project_slug)) return undefined;
  return link.site_slug;
}

/** @param {string[]} names */
const known = (names) => (names.length > 0 ? names.join(', ') : 'none');

/**
 * The site named by `slug`; without one, the linked site, else the project's only site.
 * @param {Api} api
 * @param {Settings} settings
 * @param {string | undefined} slug
 * @returns {Promise<Site>}
 */
export async function resolveSite(api, settings, slug) {
  const project = projectOf(settings);
  const { sites } = await dataOf(
    api.GET('/api/v1/projects/{id}/sites', { params: { path: { id: project } } }),
  );
  const wanted = slug ?? linkedSite(settings);
  if (wanted !== undefined) {
    const site = sites.find((s) => s.slug === wanted || s.id === wanted);
    if (!site) {
      throw new UsageError(
        `no site "${wanted}" in project ${project} (sites: ${known(sites.map((s) => s.slug))})`,
      );
    }
    return site;
  }
  const [only] = sites;
  if (sites.length === 1 && only) return only;
  if (sites.length === 0) throw new UsageError(`project ${project} has no sites yet`);
  throw new UsageError(`choose a site with --site (sites: ${known(sites.map((s) => s.slug))})`);
}

/**
 * The project's services of one kind, as `{id, name, kind}`; an auth app is named by its app_id.
 * @param {Api} api
 * @param {string} project
 * @param {Kind} kind
 * @returns {Promise<Array<Service & { engine?: string }>>}
 */
export async function listServices(api, project, kind) {
  return entryOf(kind).list(api, project);
}

/**
 * The service of `kind` called `name` (a database's or bucket's name, an auth app's app_id).
 * @param {Api} api
 * @param {Settings} settings
 * @param {Kind} kind
 * @param {string} name
 */
export async function resolveService(api, settings, kind, name) {
  const project = projectOf(settings);
  const services = await listServices(api, project, kind);
  const service = services.find((s) => s.name === name) ?? services.find((s) => s.id === name);
  if (!service) {
    throw new UsageError(
      `no ${kindLabel(kind)} "${name}" in project ${project} (${entryOf(kind).plural}: ${known(services.map((s) => s.name))})`,
    );
  }
  return service;
}
