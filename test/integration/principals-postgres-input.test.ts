/**
 * What a PostgreSQL principal's create takes (contract §7): bad input 400 naming the field, a
 * taken name 409, nothing made; a source allowlist kept normalised and enforced by the cluster.
 */

import { describe, expect, it } from 'vitest';
import { metadata } from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { canLoginFrom } from '../helpers/pg-login';
import { postgresPrincipalsForFile } from '../helpers/postgres-principals';

const { world, database, principal } = postgresPrincipalsForFile();

/**
 * Waits until the database has no policy in flight: a principal made while one is sent may be
 * missing from it, and then waits for the next minute's reconciler to send the policy naming it.
 */
const policySent = (databaseId: string) =>
  eventually(
    () =>
      metadata<{ n: number }>(
        `select count(*)::int as n from deliveries where kind = 'network_policy' and status = 'pending' and target_id = $1`,
        [databaseId],
      ),
    ([row]) => row?.n === 0,
    20_000,
    'no policy in flight',
  );

describe('database principals', () => {
  it('refuses bad input with 400 VALIDATION_FAILED naming the field and a taken name with 409 NAME_TAKEN, making nothing', async () => {
    const db = await database();
    await principal(db.base, { name: 'taken', level: 'connect' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', level: 'read' }, 'level'],
      [{ name: 'x', level: 'connect', allowed_sources: ['10.0.0.0/33'] }, 'allowed_sources[0]'],
      [{ name: 'x', level: 'connect', allowed_sources: ['nope'] }, 'allowed_sources[0]'],
      [{ name: 'x', level: 'connect', expires_at: 'tomorrow' }, 'expires_at'],
      [
        { name: 'x', level: 'connect', expires_at: new Date(Date.now() - 60_000).toISOString() },
        'expires_at',
      ],
      [
        { name: 'x', level: 'connect', expires_at: new Date(Date.now() + 400 * 86400_000).toISOString() },
        'expires_at',
      ],
      [{ name: 'Bad Name', level: 'connect' }, 'name'],
    ];
    const before = await metadata('select count(*)::int as n from principals where resource_id = $1', [
      db.id,
    ]);
    for (const [body, field] of cases) {
      const res = await world.as.post<{ error: { code: string; field?: string } }>(
        `${db.base}/principals`,
        body,
      );
      // Regression: level, CIDR and date mistakes were BAD_REQUEST, unlike every other body (contract §2).
      expect([res.status, res.body.error?.code, res.body.error?.field], JSON.stringify(body)).toEqual([
        400,
        'VALIDATION_FAILED',
        field,
      ]);
    }
    const dup = await world.as.post<{ error: { code: string } }>(`${db.base}/principals`, {
      name: 'taken',
      level: 'read-only',
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'NAME_TAKEN']);
    const after = await metadata('select count(*)::int as n from principals where resource_id = $1', [db.id]);
    expect(after).toEqual(before);
    expect(
      (
        await world.as.post(
          `/api/v1/projects/${world.project.id}/databases/${crypto.randomUUID()}/principals`,
          { name: 'x', level: 'connect' },
        )
      ).status,
    ).toBe(404);
  });

  it('a normalised allowlist is kept: bare addresses become /32 and /128, host bits are cleared', async () => {
    const db = await database();
    const p = await principal(db.base, {
      name: 'pinned',
      level: 'connect',
      allowed_sources: ['203.0.113.7', '10.1.2.3/8', '2001:db8::1'],
    });
    expect(p.allowed_sources).toEqual(['203.0.113.7/32', '10.0.0.0/8', '2001:db8::1/128']);
  });

  it('a source allowlist is enforced by the cluster: from 127.0.0.2 refused, from inside allowed', async () => {
    const db = await database();
    await policySent(db.id);
    const pinned = await principal(db.base, {
      name: 'office',
      level: 'read-only',
      allowed_sources: ['127.0.0.1'],
    });
    await policySent(db.id);
    const open = await principal(db.base, { name: 'anywhere', level: 'read-only' });
    await policySent(db.id);
    const partner = await principal(db.base, {
      name: 'partner',
      level: 'read-only',
      allowed_sources: ['127.0.0.2/32'],
    });
    // Each may log in once the policy naming its sources was acknowledged (state active).
    await eventually(
      async () =>
        (
          await world.as.get<{ principals: Array<{ state: string }> }>(`${db.base}/principals`)
        ).body.principals.map((p) => p.state),
      (states) => states.every((state) => state === 'active'),
      60_000,
      'principals active',
    );
    // The local stack's network-policy receiver writes the host rules and reloads within seconds.
    await eventually(
      async () => [
        await canLoginFrom('127.0.0.2', db.physical, pinned.username, pinned.password),
        await canLoginFrom('127.0.0.1', db.physical, partner.username, partner.password),
      ],
      (refused) => refused.every((ok) => !ok),
      20_000,
      'host rules applied',
    );
    expect(await canLoginFrom('127.0.0.1', db.physical, pinned.username, pinned.password)).toBe(true);
    expect(await canLoginFrom('127.0.0.2', db.physical, partner.username, partner.password)).toBe(true);
    // Without an allowlist the cluster's own rules apply (the local stack accepts 127.0.0.1 only).
    expect(await canLoginFrom('127.0.0.1', db.physical, open.username, open.password)).toBe(true);
  });
});
