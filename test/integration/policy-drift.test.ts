/**
 * Recording a database's network policy (functions/use-cases/delivery/network-policy.ts) against
 * the real metadata database: recordings side by side (the minute reconciler beside a
 * connection change's) leave one pending policy, never two, which the unique index on a
 * database's pending policy holds.
 */
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { policyDriftStatement } from '../../functions/use-cases/delivery/network-policy';
import { createDatabase, metadata, seed } from '../helpers/connections';
import { eventually } from '../helpers/eventually';

/** The recording statement sent at once on `n` sessions already open (as the pool's would be). */
async function recordSideBySide(databaseId: string, n: number): Promise<string[]> {
  const { sql, params } = new PgDialect().sqlToQuery(policyDriftStatement([databaseId]));
  const clients = Array.from({ length: n }, () => new pg.Client({ connectionString: inject('metadataUrl') }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const results = await Promise.all(clients.map((c) => c.query<{ id: string }>(sql, params)));
    return results.flatMap((r) => r.rows.map((row) => row.id));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

const pendingPolicies = async (databaseId: string) =>
  metadata<{ id: string }>(
    `select id from deliveries where kind = 'network_policy' and status = 'pending' and target_id = $1`,
    [databaseId],
  );

/**
 * A connected database whose policy differs from what was acknowledged (nothing is), with none
 * pending: the queue sends its first policy at once, so that one is set aside once the receiver
 * acknowledged it rather than raced while pending.
 */
async function databaseWithDrift(): Promise<string> {
  const p = await seed(inject('baseUrl'), 1);
  const { id } = await createDatabase(p.as, p.project.id);
  const policies = () =>
    metadata<{ status: string }>(
      `select status from deliveries where kind = 'network_policy' and target_id = $1`,
      [id],
    );
  await eventually(
    policies,
    (rows) => rows.length > 0 && rows.every((r) => r.status === 'delivered'),
    20_000,
    "the new database's policy acknowledged",
  );
  await metadata(
    `update deliveries set status = 'superseded' where kind = 'network_policy' and target_id = $1`,
    [id],
  );
  return id;
}

describe('recording a network policy', () => {
  it('eight recordings at once for one database record one pending policy', async () => {
    const databaseId = await databaseWithDrift();
    const recorded = await recordSideBySide(databaseId, 8);
    expect(recorded).toHaveLength(1);
    expect((await pendingPolicies(databaseId)).map((r) => r.id)).toEqual(recorded);
  });

  it('a second pending policy for one database is refused by the metadata database', async () => {
    const databaseId = await databaseWithDrift();
    expect(await recordSideBySide(databaseId, 1)).toHaveLength(1);
    const second = metadata(
      `insert into deliveries (id, kind, project_id, target_id, reason)
         select gen_random_uuid(), kind, project_id, target_id, reason from deliveries
          where kind = 'network_policy' and status = 'pending' and target_id = $1`,
      [databaseId],
    );
    await expect(second).rejects.toThrow(/deliveries_pending_policy_uq/);
    expect(await pendingPolicies(databaseId)).toHaveLength(1);
  });
});
