/**
 * `npm run deploy`: applies the metadata migrations to DATABASE_URL (the Neon database Tether
 * keeps its metadata in), then runs `wrangler deploy`. Migrations go first and are additive, so
 * the Worker now running keeps working against the migrated schema until the new one is live.
 * Arguments after `--` go to wrangler (`npm run deploy -- --env staging`).
 */
import { spawnSync } from 'node:child_process';
import { prepareAssets } from './local/build-assets';
import { applyMigrations } from './local/metadata-database';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'DATABASE_URL is not set: give the metadata database (the same value as the Worker secret), e.g. DATABASE_URL=postgres://… npm run deploy',
  );
  process.exit(1);
}
console.log('Applying metadata migrations…');
try {
  await applyMigrations(url);
} catch (err) {
  console.error(`migrations failed, nothing deployed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
// The static files wrangler uploads beside the script (wrangler.toml [assets]).
await prepareAssets();
console.log('Migrations applied. Deploying the Worker with wrangler…');
const run = spawnSync('npx', ['wrangler', 'deploy', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
