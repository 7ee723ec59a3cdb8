/**
 * `npm run seed [-- --projects 10000] [--physical 20]`: fills the local stack in DATA_DIR
 * (default `.data`) with a large tenant set (scripts/local/seed-data.ts), for scale work and
 * `npm run bench -- --scale`. Run it while `npm start` is stopped: it starts the stack's
 * PostgreSQL itself, applies the migrations, seeds, gives the IAM stand-in the seeded keys and
 * stops again. Running it again replaces the earlier seed.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareClusterAdmin } from './local/cluster-admin';
import { METADATA_DATABASE, migrateMetadata } from './local/migrate';
import { startPostgres } from './local/postgres';
import { type Seeded, seedTenants } from './local/seed-data';
import { loadSecrets } from './local/stack';

interface StandInUser {
  name: string;
  path: string;
  createDate: string;
  policies: Record<string, string>;
  keys: Array<{ id: string; secret: string; createDate: string }>;
}

/** Puts the seeded bucket keys into the IAM stand-in's state file, replacing an earlier seed's. */
async function seedIamStandIn(dataDir: string, seeded: Seeded): Promise<void> {
  const file = join(dataDir, 'stand-ins', 'aws.json');
  let state: { users: Record<string, StandInUser>; buckets: Record<string, unknown> } = {
    users: {},
    buckets: {},
  };
  try {
    state = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    // No state yet: the stand-in starts from this one.
  }
  for (const [name, user] of Object.entries(state.users))
    if (user.path.startsWith('/tether/seed-b-')) delete state.users[name];
  for (const name of Object.keys(state.buckets)) if (name.startsWith('seed-b-')) delete state.buckets[name];
  const at = new Date(Date.now() - 200 * 86_400_000).toISOString();
  for (const k of seeded.keys) {
    state.users[k.user] = {
      name: k.user,
      path: `/tether/${k.bucket}/`,
      createDate: at,
      policies: {},
      keys: [{ id: k.keyId, secret: seeded.secretKey, createDate: at }],
    };
    state.buckets[k.bucket] ??= { region: 'us-east-1', objects: {}, settings: {} };
  }
  await mkdir(join(dataDir, 'stand-ins'), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(state), { mode: 0o600 });
}

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
  const pg = await startPostgres({ dataDir });
  try {
    const metadataUrl = await migrateMetadata(pg.adminUrl);
    const clusterAdminUrl = await prepareClusterAdmin(pg.adminUrl, dataDir, METADATA_DATABASE);
    const secrets = await loadSecrets(dataDir);
    const seeded = await seedTenants({
      metadataUrl,
      superuserUrl: pg.adminUrl,
      clusterAdminUrl,
      encryptionKeys: secrets.ENCRYPTION_KEYS,
      projects,
      physical,
      log: (line) => console.log(`[seed] ${line}`),
    });
    await seedIamStandIn(dataDir, seeded);
    console.log(
      `[seed] ${seeded.projects} projects, ${seeded.sites} sites, ${seeded.connections} connections, ` +
        `${seeded.principals} principals in ${((Date.now() - started) / 1000).toFixed(1)} s (${dataDir})`,
    );
  } finally {
    await pg.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`[seed] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
