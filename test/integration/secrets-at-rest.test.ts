/**
 * Nothing secret in plain text at rest: a project handed one of every kind of secret leaves
 * none of them readable in the metadata database, the logs or the local stack's files.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api } from '../helpers/api';
import {
  connectionsPath,
  createAuthApp,
  createBucket,
  createDatabase,
  effectiveVars,
  metadata,
  projectPath,
  type Seeded,
  seed,
} from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';
import { startExtraWorker } from '../helpers/worker';

const world = connectionsWorldForFile();
const site = (p: Seeded, i: number) => p.sites[i]?.id as string;

/** Hands out one of every kind of secret in a new project: returns them, each checked non-trivial. */
async function handOutSecrets(): Promise<{ p: Seeded; secrets: string[] }> {
  const p = await seed(world.worker.baseUrl, 1);
  await createDatabase(p.as, p.project.id);
  await createDatabase(p.as, p.project.id, 'mongodb');
  await createBucket(p.as, p.project.id);
  const app = await createAuthApp(p.as, p.project.id);
  await p.as.post(connectionsPath(p, site(p, 0)), { kind: 'auth_app', resource_id: app.id, level: 'admin' });
  await p.as.put(`${projectPath(p)}/sites/${site(p, 0)}/env`, {
    vars: { MY_TOKEN: 'user-secret-value-0123456789' },
  });
  const apiKey = await p.as.post<{ key: string }>(`${projectPath(p)}/api-keys`, {
    name: 'ci',
    capabilities: { storage: true },
  });
  const vars = await effectiveVars(p, site(p, 0));
  const secrets = [
    p.token,
    apiKey.body.key,
    'user-secret-value-0123456789',
    vars.PLATFORM_API_KEY,
    vars.SERVICE_AUTH_SERVER_KEY,
    vars.STORAGE_SECRET_KEY,
    new URL(vars.DATABASE_URL as string).password,
    decodeURIComponent(new URL(vars.MONGODB_URI as string).password),
  ].map(String);
  for (const secret of secrets) expect(secret.length).toBeGreaterThan(15);
  return { p, secrets };
}

describe('nothing secret in plain text at rest', () => {
  it('a dump of every metadata table holds no password, key or token', async () => {
    const { p, secrets } = await handOutSecrets();
    const tables = await metadata<{ t: string }>(
      "select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(10);
    let dump = '';
    for (const { t } of tables) {
      const rows = await metadata<{ j: string }>(`select coalesce(json_agg(x)::text, '') as j from "${t}" x`);
      dump += rows[0]?.j ?? '';
    }
    expect(dump).toContain(p.project.id);
    for (const secret of secrets) expect(dump.includes(secret)).toBe(false);
  });

  // With TETHER_TEST_LOGS=1 the Worker writes to the terminal instead of a file.
  it.skipIf(process.env.TETHER_TEST_LOGS === '1')(
    "the Worker's log holds none of them, its failures included",
    async () => {
      const { p, secrets } = await handOutSecrets();
      // A failure that is logged: rotating through a Worker whose cluster is a closed port.
      const admin = new URL(inject('adminUrl'));
      admin.host = `127.0.0.1:${await freePort()}`;
      const broken = await startExtraWorker({ CUSTOMER_DB_ADMIN_URL: admin.toString() });
      try {
        const dbId = (
          await p.as.get<{ connections: Array<{ kind: string; resource_id: string }> }>(
            connectionsPath(p, site(p, 0)),
          )
        ).body.connections.find((c) => c.kind === 'database')?.resource_id;
        const rotate = await api(broken.baseUrl, p.token).post(
          `${connectionsPath(p, site(p, 0))}/database/${dbId}/rotate`,
        );
        expect(rotate.status).toBe(503);
      } finally {
        await broken.stop();
      }
      const log = [
        await readFile(world.worker.logFile as string, 'utf8'),
        await readFile(broken.logFile as string, 'utf8'),
      ].join('\n');
      expect(log).toContain('failed');
      for (const [i, secret] of secrets.entries())
        expect(log.includes(secret), `secret #${i} in the log`).toBe(false);
    },
    90_000,
  );
});
