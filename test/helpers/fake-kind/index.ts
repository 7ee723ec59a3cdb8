/**
 * A service kind as a plugin folder brings it, written from test code: `cache`, a key-value cache
 * whose services live in a table of their own (`fake_caches`, made by the folder's own
 * `migrations/`, applied as the deployment applies a plugin's: {@link applyCacheMigrations}) and are
 * reached at the host its outside system configures (CACHE_HOST, CACHE_PORT: a default, and a
 * check across them). It brings its words, levels, variable family and values, and what a site's
 * managed key may do for it (nothing); its connections hold no credential of their own.
 * `registerKind(cache)` is its one registry line.
 */
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { z } from 'zod';
import { defineSystem } from '../../../functions/kinds/outside-system';
import type { PluginKind } from '../../../functions/kinds/registry';
import { serviceText } from '../../../functions/kinds/service-kind';
import { nameTakenOn } from '../../../functions/kinds/service-rows';
import { applyMigrations } from '../../../scripts/local/metadata-database';
import type { ApiClient } from '../api';

/** The cache kind's system: where apps reach its caches. */
export const cacheSystem = defineSystem({
  name: 'cache',
  variables: {
    /** The host apps reach caches at: required with CACHE_TLS. */
    CACHE_HOST: z.string().optional(),
    CACHE_PORT: z.coerce.number().int().min(1).max(65_535).default(6380),
    CACHE_TLS: z.enum(['on', 'off']).default('off'),
  },
  check: (vars) => (vars.CACHE_TLS === 'on' && !vars.CACHE_HOST ? ['CACHE_HOST'] : []),
  build: () => null,
});

/** The cache kind. */
export const cache: PluginKind = {
  name: 'cache',
  word: 'cache',
  plural: 'caches',
  commandWords: ['cache'],
  levels: [
    { level: 'read', meaning: 'reads keys' },
    { level: 'read-write', meaning: 'reads and writes keys' },
  ],
  defaultLevel: 'read',
  levelChangeConsequence: null,
  table: 'fake_caches',
  nameColumn: 'name',
  enabledColumn: 'enabled',
  softDeleted: true,
  hasEngine: false,
  system: cacheSystem,
  families: [{ name: 'cache', plain: ['CACHE_URL'], suffixed: (n) => [`CACHE_URL_${n}`] }],
  family: () => 'cache',
  derivedFrom: ['physical_name'],
  async values({ config }, row) {
    const { CACHE_HOST, CACHE_PORT, CACHE_TLS } = cacheSystem.settings(config);
    const scheme = CACHE_TLS === 'on' ? 'rediss' : 'redis';
    const db = serviceText(row, 'physical_name') ?? '';
    const access = row.level === 'read-write' ? 'rw' : 'ro';
    return { CACHE_URL: `${scheme}://${access}@${CACHE_HOST ?? 'localhost'}:${CACHE_PORT}/${db}` };
  },
  creation: {
    fields: { max_memory_mb: z.number().int().min(16).max(4096).optional() },
    columns: ({ name, max_memory_mb }) => ({
      physical_name: `cache_${name.replace(/-/g, '_')}`,
      max_memory_mb: typeof max_memory_mb === 'number' ? max_memory_mb : 64,
    }),
  },
  shown: ['max_memory_mb'],
  capabilities: () => ({}),
  nameTaken: nameTakenOn('fake_caches_project_name_uq', (name) => `a cache named ${name} already exists`),
  credentials: null,
};

/** This folder's migrations, as the deployment's migrator finds a plugin folder's. */
export const CACHE_MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/** Applies the cache kind's migrations to the metadata database (as `npm run migrate` does a plugin folder's). */
export async function applyCacheMigrations(): Promise<void> {
  await applyMigrations(inject('metadataUrl'), [CACHE_MIGRATIONS]);
}

/** A cache of project `projectId` named `name`, made through its kind's routes; throws unless 201. */
export async function createCache(
  as: ApiClient,
  projectId: string,
  name: string,
): Promise<{ id: string; name: string }> {
  const res = await as.post<{ id: string; name: string }>(`/api/v1/projects/${projectId}/caches`, { name });
  if (res.status !== 201) throw new Error(`creating cache ${name}: ${res.status} ${res.text}`);
  return res.body;
}
