// @ts-check
/**
 * The one table of service kinds the tool knows, as the API names them: the words typed for
 * each, how it is shown, its levels, how its services are listed, and what each kind has (a
 * credential to rotate, principals, a level to confirm). Commands read this table; none
 * compares kind or engine names itself.
 */
import { dataOf } from './api.mjs';

/**
 * @typedef {import('./api.mjs').Api} Api
 * @typedef {import('./types.mjs').Kind} Kind
 * @typedef {import('./types.mjs').Service} Service
 * @typedef {{ name: string, level: string, allowed_sources?: string[], expires_at?: string }} PrincipalInput
 * @typedef {{ id: string, name: string, level: string, allowed_sources: string[], expires_at: string | null,
 *   expired?: boolean, created_at: string, username?: string, password?: string, url?: string,
 *   access_key_id?: string, secret_access_key?: string }} Principal
 * @typedef {{
 *   list(): Promise<{ principals: Principal[] }>,
 *   create(body: PrincipalInput): Promise<Record<string, unknown>>,
 *   rotate(principalId: string, graceSeconds?: string): Promise<Record<string, unknown>>,
 *   revoke(principalId: string): Promise<{ revoked: boolean }>,
 * }} PrincipalCalls
 * @typedef {{
 *   words: string[],
 *   group: string,
 *   label: string,
 *   noun: string,
 *   plural: string,
 *   levels: readonly string[],
 *   list: (api: Api, project: string) => Promise<Array<Service & { engine?: string }>>,
 *   rotates: boolean,
 *   confirm?: { level: string, what(service: string, site: string): string, detail: string },
 *   principals?: { path: string, param: string },
 *   envOf?(shown: Record<string, unknown>): Record<string, string>,
 * }} KindEntry
 * @typedef {(path: string, init: { params: { path: Record<string, string> }, body?: unknown }) =>
 *   Promise<{ data?: unknown, response: Response }>} UntypedCall
 */

/**
 * The kinds and engines the deployment offers (GET /api/v1/kinds, public): engines are never
 * named here, so an engine the server registers is one the tool takes.
 * @param {Api} api
 */
export const catalogOf = (api) => dataOf(api.GET('/api/v1/kinds'));

/** @type {Record<Kind, KindEntry>} */
export const KINDS = {
  database: {
    words: ['database', 'db'],
    group: 'db',
    label: 'database',
    noun: 'database',
    plural: 'databases',
    levels: ['read-only', 'connect'],
    list: async (api, id) => {
      const { databases } = await dataOf(
        api.GET('/api/v1/projects/{id}/databases', { params: { path: { id } } }),
      );
      return databases.map((d) => ({ id: d.id, name: d.name, kind: 'database', engine: d.engine }));
    },
    rotates: true,
    principals: { path: '/api/v1/projects/{id}/databases/{dbId}/principals', param: 'dbId' },
    envOf: (shown) => {
      const url = String(shown.external_url ?? shown.url ?? '');
      return { [url.startsWith('mongodb') ? 'MONGODB_URI' : 'DATABASE_URL']: url };
    },
  },
  bucket: {
    words: ['bucket'],
    group: 'bucket',
    label: 'bucket',
    noun: 'bucket',
    plural: 'buckets',
    levels: ['read', 'read-write'],
    list: async (api, id) => {
      const { buckets } = await dataOf(
        api.GET('/api/v1/projects/{id}/buckets', { params: { path: { id } } }),
      );
      return buckets.map((b) => ({ id: b.id, name: b.name, kind: 'bucket' }));
    },
    rotates: true,
    principals: { path: '/api/v1/projects/{id}/buckets/{bucketId}/principals', param: 'bucketId' },
    envOf: (shown) => {
      /** @type {Record<string, string>} */
      const vars = {
        STORAGE_ACCESS_KEY: String(shown.access_key_id ?? ''),
        STORAGE_SECRET_KEY: String(shown.secret_access_key ?? ''),
      };
      if (shown.endpoint) vars.STORAGE_ENDPOINT = String(shown.endpoint);
      if (shown.bucket) vars.STORAGE_BUCKET = String(shown.bucket);
      if (shown.region) vars.STORAGE_REGION = String(shown.region);
      return vars;
    },
  },
  auth_app: {
    words: ['auth', 'auth_app', 'auth-app'],
    group: 'auth',
    label: 'auth',
    noun: 'auth app',
    plural: 'auth apps',
    levels: ['client', 'admin'],
    list: async (api, id) => {
      const { auth_apps } = await dataOf(
        api.GET('/api/v1/projects/{id}/auth-apps', { params: { path: { id } } }),
      );
      return auth_apps.map((a) => ({ id: a.id, name: a.app_id, kind: 'auth_app' }));
    },
    rotates: false,
    confirm: {
      level: 'admin',
      what: (service, site) => `Raise auth app ${service} to admin for site ${site}`,
      detail: "Its PLATFORM_API_KEY will be able to administer the app's end users.",
    },
  },
};

/** Every kind, in the order shown. */
export const KIND_LIST = /** @type {Kind[]} */ (Object.keys(KINDS));

/**
 * The kind a word typed on the command line names, if any.
 * @param {string} word
 * @returns {Kind | undefined}
 */
export const kindNamed = (word) => KIND_LIST.find((k) => KINDS[k].words.includes(word.toLowerCase()));

/**
 * @typedef {import('./api.mjs').Schemas['CreationField']} CreationField
 * @typedef {{ kind: string, noun: string, plural: string, command_words: string[], levels: string[],
 *   own_credentials: boolean, services_path: string, creation_fields: CreationField[] | null }} ServedKind
 * @typedef {{ id: string, name: string, created_at: string } & Record<string, unknown>} ServedService
 */

/** The kinds the server registers that the tool has no entry of its own for, by name (kindServedAs). */
/** @type {Map<string, KindEntry>} */
const SERVED = new Map();

/**
 * The entry of a kind the server offers (GET /api/v1/kinds) and the tool has no row for: its words,
 * nouns and levels from the catalog; its services listed through its own route (`services_path`).
 * @param {ServedKind} served
 * @returns {KindEntry}
 */
const servedEntry = (served) => ({
  words: served.command_words,
  group: served.kind,
  label: served.noun,
  noun: served.noun,
  plural: served.plural,
  levels: served.levels,
  list: async (api, id) =>
    (await servedCalls(api, served, id).list()).map((s) => ({
      id: s.id,
      name: s.name,
      kind: /** @type {Kind} */ (served.kind),
    })),
  rotates: served.own_credentials,
});

/**
 * The calls of the routes of a served kind's services in project `project` (its path from the
 * catalog, so openapi-fetch has no type for it): list, create, delete by id.
 * @param {Api} api
 * @param {ServedKind} served
 * @param {string} project
 */
export function servedCalls(api, served, project) {
  const untyped = /** @type {{ GET: UntypedCall, POST: UntypedCall, DELETE: UntypedCall }} */ (
    /** @type {unknown} */ (api)
  );
  const all = `/api/v1/projects/{id}/${served.services_path}`;
  const path = { id: project };
  /** @param {string} service */
  const one = (service) => ({ params: { path: { ...path, serviceId: service } } });
  const key = served.services_path.replaceAll('-', '_');
  return {
    list: async () =>
      /** @type {Record<string, ServedService[]>} */ (await dataOf(untyped.GET(all, { params: { path } })))[
        key
      ] ?? [],
    /** @param {Record<string, unknown>} body */
    create: async (body) =>
      /** @type {ServedService} */ (await dataOf(untyped.POST(all, { params: { path }, body }))),
    /** @param {string} id */
    remove: async (id) => {
      await dataOf(untyped.DELETE(`${all}/{serviceId}`, one(id)));
    },
  };
}

/**
 * The kind `word` names among those the server offers (GET /api/v1/kinds, public) that the tool has
 * no row for: its name, or undefined. The tool takes such a kind as it takes its own.
 * @param {ServedKind[]} catalog
 * @param {string} word
 * @returns {Kind | undefined}
 */
export function kindServedAs(catalog, word) {
  const served = servedKindNamed(catalog, word);
  if (!served) return undefined;
  SERVED.set(served.kind, servedEntry(served));
  return /** @type {Kind} */ (served.kind);
}

/**
 * The catalog's kind `word` names, among those the tool has no row for.
 * @param {ServedKind[]} catalog
 * @param {string} word
 * @returns {ServedKind | undefined}
 */
export function servedKindNamed(catalog, word) {
  const w = word.toLowerCase();
  return catalog.find((k) => !(k.kind in KINDS) && (k.kind === w || k.command_words.includes(w)));
}

/**
 * The entry of kind `kind`: the tool's own row, or the one the server's catalog gave it.
 * @param {Kind} kind
 * @returns {KindEntry}
 */
export function entryOf(kind) {
  const entry = findEntry(kind);
  if (!entry) throw new Error(`no entry for kind ${kind}`);
  return entry;
}

/**
 * The entry of kind `kind` (the tool's own row, or the one the server's catalog gave it), if any.
 * @param {string} kind
 * @returns {KindEntry | undefined}
 */
export const findEntry = (kind) => (kind in KINDS ? KINDS[/** @type {Kind} */ (kind)] : SERVED.get(kind));

/**
 * `a, b or c`.
 * @param {readonly string[]} words
 */
export const orList = (words) => words.join(', ').replace(/, ([^,]*)$/, ' or $1');

/**
 * The principal calls of one service of a kind that has principals: the kinds differ only in their paths.
 * @param {Api} api
 * @param {{ path: string, param: string }} where
 * @param {string} id the project
 * @param {string} serviceId
 * @returns {PrincipalCalls}
 */
export function principalCalls(api, where, id, serviceId) {
  // The path is one of the kinds' principal paths, whose answers are the same shapes;
  // openapi-fetch types each path, not their union.
  const untyped = /** @type {{ GET: UntypedCall, POST: UntypedCall, DELETE: UntypedCall }} */ (
    /** @type {unknown} */ (api)
  );
  const path = { id, [where.param]: serviceId };
  const one = `${where.path}/{principalId}`;
  /** @param {string} principalId */
  const onePath = (principalId) => ({ params: { path: { ...path, principalId } } });
  return {
    list: async () =>
      /** @type {{ principals: Principal[] }} */ (
        await dataOf(untyped.GET(where.path, { params: { path } }))
      ),
    create: async (body) =>
      /** @type {Record<string, unknown>} */ (
        await dataOf(untyped.POST(where.path, { params: { path }, body }))
      ),
    rotate: async (principalId, graceSeconds) =>
      /** @type {Record<string, unknown>} */ (
        await dataOf(
          untyped.POST(`${one}/rotate`, {
            params: {
              ...onePath(principalId).params,
              ...(graceSeconds === undefined ? {} : { query: { grace_seconds: graceSeconds } }),
            },
          }),
        )
      ),
    revoke: async (principalId) =>
      /** @type {{ revoked: boolean }} */ (await dataOf(untyped.DELETE(one, onePath(principalId)))),
  };
}
