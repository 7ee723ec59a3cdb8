/**
 * The operator token (contract §9): any OPERATOR_TOKEN of at least 32 characters is
 * honoured exactly as given; a shorter one stops `npm start` and makes the Worker answer 500
 * BAD_ENVIRONMENT, each naming the variable.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/net';
import { api, uniqueName } from '../helpers/api';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

type ManagementError = { error: { code: string; message: string } };
const workers: ExtraWorker[] = [];

afterAll(async () => {
  for (const w of workers) await w.stop();
});

describe('OPERATOR_TOKEN', () => {
  // Regression: a token without the tth_op_ prefix was never compared, so it created nothing.
  it('a 32-character token of any form is honoured as given, and only exactly that token', async () => {
    const token = `My-Own.Operator_Secret-${uniqueName('x')}`.padEnd(32, '~').slice(0, 32);
    expect(token).toHaveLength(32);
    const worker = await startExtraWorker({ OPERATOR_TOKEN: token });
    workers.push(worker);
    const made = await api(worker.baseUrl, token).post('/api/v1/accounts', {
      email: `${uniqueName('op')}@example.test`,
    });
    expect(made.status).toBe(201);
    const near = await api(worker.baseUrl, `${token.slice(0, 31)}?`).post('/api/v1/accounts', {
      email: `${uniqueName('op')}@example.test`,
    });
    expect(near.status).toBe(401);
  });

  it('a 31-character token makes the Worker answer 500 BAD_ENVIRONMENT naming OPERATOR_TOKEN', async () => {
    const short = 'tth_op_'.padEnd(31, 'a');
    const worker = await startExtraWorker({ OPERATOR_TOKEN: short });
    workers.push(worker);
    const res = await api(worker.baseUrl, short).post<ManagementError>('/api/v1/accounts', {
      email: `${uniqueName('op')}@example.test`,
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('BAD_ENVIRONMENT');
    expect(res.body.error.message).toContain('OPERATOR_TOKEN');
  });

  it('a 31-character token stops npm start before anything starts, naming the variable', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tether-optoken-'));
    try {
      const run = spawnSync('npx', ['tsx', 'scripts/start.ts'], {
        env: {
          ...process.env,
          OPERATOR_TOKEN: 'a'.repeat(31),
          PORT: String(await freePort()),
          DATA_DIR: dataDir,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('OPERATOR_TOKEN must be at least 32 characters');
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
