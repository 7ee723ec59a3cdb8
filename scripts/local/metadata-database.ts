/**
 * Creates the local metadata database and brings it to the latest drizzle migration.
 */
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

/** The metadata database's name on the local cluster. */
export const METADATA_DATABASE = 'tether';

/** db/migrations, found relative to this file so any working directory works. */
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url));

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

/** Applies the drizzle migrations in db/migrations to the database at `url` (idempotent). */
export async function applyMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set client_min_messages = warning');
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end();
  }
}
