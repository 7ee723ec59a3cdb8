/**
 * Seeds the local stack kept in a data folder (scripts/local/seed-data.ts) with its PostgreSQL
 * started for the purpose and stopped again, and gives the IAM stand-in the seeded keys (its
 * state file, read when the stack starts). Used by `npm run seed` and `npm run bench -- --scale`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareClusterAdmin } from './cluster-admin';
import { METADATA_DATABASE, migrateMetadata } from './metadata-database';
import { startPostgres } from './postgres';
import { type Seeded, seedTenants } from './seed-data';
import { loadSecrets } from './services';
import { USERS_PER_ACCOUNT } from './stand-ins/iam-actions';

interface StandInUser {
  name: string;
  path: string;
  createDate: string;
  policies: Record<string, string>;
  keys: Array<{ id: string; secret: string; createDate: string }>;
}

/** Puts the seeded bucket keys into the IAM stand-in's state file, replacing an earlier seed's. */
export async function seedIamStandIn(dataDir: string, seeded: Seeded): Promise<void> {
  const file = join(dataDir, 'stand-ins', 'aws.json');
  let state: {
    users: Record<string, StandInUser>;
    buckets: Record<string, unknown>;
    usersPerAccount?: number;
  } = {
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
  // One AWS account holds at most 5,000 users (IAM's quota, which AWS does not raise): a seed
  // of more key users than that stands for keys spread over several accounts, so the stand-in
  // is given room for them and as many again, and new keys are still refused past that.
  const held = Object.keys(state.users).length;
  if (held > USERS_PER_ACCOUNT) state.usersPerAccount = held + USERS_PER_ACCOUNT;
  await mkdir(join(dataDir, 'stand-ins'), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(state), { mode: 0o600 });
}

/** Seeds `projects` projects (`physical` with a real database) into the stack kept in `dataDir`; npm start stopped. */
export async function seedDataDir(
  dataDir: string,
  projects: number,
  physical: number,
  log: (line: string) => void,
): Promise<Seeded> {
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
      log,
    });
    await seedIamStandIn(dataDir, seeded);
    return seeded;
  } finally {
    await pg.stop();
  }
}
