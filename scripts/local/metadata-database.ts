/**
 * Creates the local metadata database and brings it to the latest drizzle migration: db/migrations,
 * then the migrations a plugin folder under functions/kinds/ brings (its own `migrations/`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

/** The metadata database's name on the local cluster. */
export const METADATA_DATABASE = 'tether';

/** db/migrations, found relative to this file so any working directory works. */
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url));

/** functions/kinds, whose plugin folders may bring migrations of their own. */
const KINDS_FOLDER = fileURLToPath(new URL('../../functions/kinds', import.meta.url));

/** The `migrations/` folders (drizzle's layout: `meta/_journal.json` and the SQL files) of the plugin folders in `root`. */
export function pluginMigrationFolders(root = KINDS_FOLDER): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, entry.name, 'migrations'))
    .filter((folder) => existsSync(join(folder, 'meta', '_journal.json')))
    .sort();
}

/** The table recording which of a plugin folder's migrations ran: one per plugin, named for its folder. */
export const pluginMigrationsTable = (folder: string): string =>
  `__drizzle_migrations_${basename(join(folder, '..'))
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()}`;

/** An arbitrary, fixed advisory-lock key that serialises concurrent migrators. */
const MIGRATION_LOCK = 7_412_655_301;

/**
 * Creates database `tether` on the cluster `adminUrl` points at (when missing) and applies
 * the drizzle migrations in db/migrations. Returns the metadata URL,
 * `postgres://postgres:<pw>@127.0.0.1:<port>/tether`.
 */
export async function migrateMetadata(adminUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [METADATA_DATABASE]);
    if (found.rowCount === 0) {
      await admin
        .query(`create database ${admin.escapeIdentifier(METADATA_DATABASE)}`)
        .catch((err: unknown) => {
          // 42P04 duplicate_database: another process created it first.
          if ((err as { code?: string }).code !== '42P04') throw err;
        });
    }
  } finally {
    await admin.end();
  }

  const url = new URL(adminUrl);
  url.pathname = `/${METADATA_DATABASE}`;
  const metadataUrl = url.toString();

  await applyMigrations(metadataUrl);
  return metadataUrl;
}

/**
 * Applies the drizzle migrations in db/migrations, then each of `plugins` (the plugin folders'
 * own, {@link pluginMigrationFolders}) recorded in a table of its own, to the database at `url`
 * (idempotent).
 */
export async function applyMigrations(url: string, plugins = pluginMigrationFolders()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set client_min_messages = warning');
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
    for (const folder of plugins)
      await migrate(db, { migrationsFolder: folder, migrationsTable: pluginMigrationsTable(folder) });
  } finally {
    await client.end();
  }
}
