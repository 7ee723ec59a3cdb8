import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pluginMigrationFolders, pluginMigrationsTable } from './metadata-database';

const helpers = fileURLToPath(new URL('../../test/helpers', import.meta.url));

describe("a plugin folder's migrations", () => {
  it('are found in each folder holding a drizzle migrations folder, and only there', () => {
    expect(pluginMigrationFolders(helpers)).toEqual([`${helpers}/fake-kind/migrations`]);
  });

  it('are recorded in a table of their own, named for the folder', () => {
    expect(pluginMigrationsTable(`${helpers}/fake-kind/migrations`)).toBe('__drizzle_migrations_fake_kind');
  });
});
