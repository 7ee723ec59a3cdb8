/**
 * Applies Tether's metadata migrations to the database named by DATABASE_URL (for a deployed
 * service: the Neon connection string). Usage: DATABASE_URL=postgres://... npx tsx scripts/migrate.ts
 */
import { applyMigrations } from './local/metadata-database';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
await applyMigrations(url);
console.log('migrations applied');
