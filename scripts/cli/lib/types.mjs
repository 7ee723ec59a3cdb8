// @ts-check
/**
 * Shapes of the API's answers the tool reads (docs/contract.md and the specification's connection
 * object and available entry). Types only.
 *
 * @typedef {{ id: string, slug: string, name: string }} Project
 * @typedef {{ id: string, slug: string, created_at: string }} Site
 * @typedef {{ id: string, name: string, engine: 'postgresql' | 'mongodb', status: string }} Database
 * @typedef {{ id: string, name: string, region: string }} Bucket
 * @typedef {{ id: string, app_id: string, name?: string | null, enabled: boolean }} AuthApp
 * @typedef {'database' | 'bucket' | 'auth_app'} Kind
 * @typedef {{ site_id: string, site_slug: string, kind: Kind, resource_id: string,
 *   resource_name: string, level: string, env_names: string[], created_at: string }} Connection
 * @typedef {{ kind: Kind, resource_id: string, resource_name: string, levels: string[],
 *   env_names: string[] }} Available
 * @typedef {{ site_id: string, site_slug: string, level: string, env_names: string[],
 *   created_at: string }} ServiceSite
 * @typedef {{ id: string, name: string, kind: Kind }} Service
 */
export {};
