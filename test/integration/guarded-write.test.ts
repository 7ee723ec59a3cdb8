/**
 * The one guarded write batch (functions/use-cases/store/guarded-write.ts) against the real metadata
 * database through the SQL-over-HTTP endpoint the Worker uses: every write of a batch lands or
 * none does, a failed guard answers with the API error it names, a unique violation with the
 * error its constraint maps to.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createHttpDb, type HttpDb } from '../../db/client';
import { ApiError } from '../../functions/lib/errors';
import { guard, guardRows, rowsReturned, runGuarded } from '../../functions/use-cases/store/guarded-write';
import { uniqueName } from '../helpers/api';
import { metadata } from '../helpers/connections';

let db: HttpDb;
const table = `guarded_${uniqueName('t').replace(/[^a-z0-9]/g, '_')}`;

beforeAll(async () => {
  const env = inject('workerEnv');
  db = createHttpDb(inject('metadataUrl'), env.NEON_HTTP_ENDPOINT);
  await metadata(`create table ${table} (name text primary key, n int not null)`);
});

const insert = (name: string, n = 0) =>
  db.execute(sql`insert into ${sql.raw(table)} (name, n) values (${name}, ${n})`);
const names = async () =>
  (await metadata<{ name: string }>(`select name from ${table} order by name`)).map((r) => r.name);

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('one guarded write batch', () => {
  it('lands every write of a batch whose guards hold, in order, guards seeing earlier writes', async () => {
    await runGuarded(db, [
      insert('a1'),
      insert('a2'),
      db.execute(
        guard(sql`(select count(*) from ${sql.raw(table)} where name like 'a%') = 2`, {
          code: 'CONFLICT',
          message: 'unreachable',
        }),
      ),
    ]);
    expect(await names()).toEqual(['a1', 'a2']);
  });

  it('rolls the whole batch back when a guard fails and answers with the error it names', async () => {
    const err = await refusal(
      runGuarded(db, [
        insert('b1'),
        db.execute(guard(sql`false`, { code: 'NOT_FOUND', message: 'project not found', field: 'id' })),
        insert('b2'),
      ]),
    );
    expect([err.status, err.code, err.message, err.field]).toEqual([
      404,
      'NOT_FOUND',
      'project not found',
      'id',
    ]);
    expect((await names()).filter((n) => n.startsWith('b'))).toEqual([]);
  });

  it('treats a null condition (a row that is not there) as failed', async () => {
    const err = await refusal(
      runGuarded(db, [
        insert('c1'),
        db.execute(
          guard(sql`(select n = 0 from ${sql.raw(table)} where name = 'nobody')`, {
            code: 'CONFLICT',
            message: 'gone',
          }),
        ),
      ]),
    );
    expect(err.code).toBe('CONFLICT');
    expect(await names()).not.toContain('c1');
  });

  it('returns the rows a guarded update changed, and refuses one that changed none', async () => {
    await metadata(`insert into ${table} (name, n) values ('d1', 1)`);
    const [answer] = await runGuarded(db, [
      db.execute(
        guardRows(sql`update ${sql.raw(table)} set n = n + 1 where name = 'd1' returning name, n`, {
          code: 'NOT_FOUND',
          message: 'd1 not found',
        }),
      ),
    ]);
    expect(rowsReturned(answer)).toEqual([{ name: 'd1', n: 2 }]);

    const err = await refusal(
      runGuarded(db, [
        insert('d2'),
        db.execute(
          guardRows(sql`update ${sql.raw(table)} set n = 0 where name = 'missing' returning name`, {
            code: 'NOT_FOUND',
            message: 'missing not found',
          }),
        ),
      ]),
    );
    expect([err.code, err.message]).toEqual(['NOT_FOUND', 'missing not found']);
    expect(await names()).not.toContain('d2');
  });

  it('answers a unique violation with the error its constraint maps to, and rethrows it otherwise', async () => {
    await metadata(`insert into ${table} (name, n) values ('e1', 0)`);
    const err = await refusal(
      runGuarded(db, [insert('e2'), insert('e1')], {
        onUnique: (constraint) =>
          constraint === `${table}_pkey` ? new ApiError('NAME_TAKEN', 'e1 is taken', 'name') : undefined,
      }),
    );
    expect([err.status, err.code]).toEqual([409, 'NAME_TAKEN']);
    const raw = await runGuarded(db, [insert('e1')]).catch((e: unknown) => e);
    expect(raw).not.toBeInstanceOf(ApiError);
    expect(await names()).not.toContain('e2');
  });
});
