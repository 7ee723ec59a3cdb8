/**
 * `npm run seed [-- --projects 10000] [--physical 20]`: fills the local stack in DATA_DIR
 * (default `.data`) with a large tenant set (scripts/local/seed-data.ts), for scale work and
 * `npm run bench -- --scale`. Run it while `npm start` is stopped: it starts the stack's
 * PostgreSQL itself, applies the migrations, seeds, gives the IAM stand-in the seeded keys and
 * stops again. Running it again replaces the earlier seed.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { seedDataDir } from './local/seed-dir';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      projects: { type: 'string', default: '10000' },
      physical: { type: 'string', default: '20' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'npm run seed -- [--projects N (10000)] [--physical N (20)]   (DATA_DIR, default .data; npm start stopped)',
    );
    return;
  }
  const projects = Number(values.projects);
  const physical = Number(values.physical);
  if (!Number.isInteger(projects) || projects < 1 || !Number.isInteger(physical) || physical < 0)
    throw new Error('--projects: a whole number of 1 or more; --physical: 0 or more');
  const dataDir = resolve(process.env.DATA_DIR || '.data');
  const started = Date.now();
  const seeded = await seedDataDir(dataDir, projects, physical, (line) => console.log(`[seed] ${line}`));
  console.log(
    `[seed] ${seeded.projects} projects, ${seeded.sites} sites, ${seeded.connections} connections, ` +
      `${seeded.principals} principals, ${seeded.events} activity events in ${((Date.now() - started) / 1000).toFixed(1)} s (${dataDir})`,
  );
}

main().catch((err: unknown) => {
  console.error(`[seed] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
