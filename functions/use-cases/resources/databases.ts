/** Databases: records plus the real database on its cluster (PostgreSQL) or its admin API (MongoDB). */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { runBatch } from '../../../db/client';
import type { DatabaseRow } from '../../../db/rows';
import { databases } from '../../../db/schema';
import type { Engine } from '../../domain/variables';
import { outside } from '../../kinds/credential-provisioner';
import { engineOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';
import { newId, randomLowerAlnum, randomPassword } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import { afterCommit } from '../connections/apply';
import { type ServiceHolders, writeServiceRemoval } from '../connections/service-removal';
import { createSharedReader, readerUserOf } from '../credentials/shared-reader';
import { guard, guardRows } from '../store/guarded-write';
import { assertNameFree } from './name-checks';
import { type InitialSite, writeNewService } from './new-service-write';
import { revokeDatabasePrincipals } from './principal-removal';
import { serviceReads } from './service-reads';

export type { DatabaseRow };

/**
 * The physical name on the cluster: the name plus a random suffix, since clusters are shared.
 * Postgres reserves role names starting with `pg_`, and the owner group is `<physical>_rw`, so
 * such names get a `db_` prefix.
 */
export function physicalDatabaseName(name: string): string {
  const base = `${name.slice(0, 48).replace(/-/g, '_')}_${randomLowerAlnum(8)}`;
  return base.startsWith('pg_') ? `db_${base}` : base;
}

/** The database reads its routes send with their caller (resources/service-reads.ts): list, one by id, its 404, a creation's. */
const reads = serviceReads('database');
export const { list: listDatabases, query: databaseQuery } = reads;
export const { of: databaseOf, creation: databaseCreationQueries } = reads;

/** The cap on a project's live databases (contract §9, The shared cluster), with its refusal's words. */
function databaseCap(ctx: RequestContext): { max: number; message: string } {
  const max = ctx.config.MAX_DATABASES_PER_PROJECT;
  return {
    max,
    message: `the project already holds ${max} databases, the most one project may (MAX_DATABASES_PER_PROJECT); delete one first`,
  };
}

/**
 * Creates a database for real (with its shared read-only login), then its record with the
 * initial connection in one guarded batch (writeNewService); on any failure what was made on
 * the cluster or at Atlas is dropped again. `existing` and `initial` were read with the caller.
 */
export async function createDatabase(
  ctx: RequestContext,
  projectId: string,
  input: { name: string; engine: Engine; replicaSet: boolean },
  read: { existing: DatabaseRow[]; initial: InitialSite },
): Promise<DatabaseRow> {
  const { config, adapters } = ctx;
  const { existing } = read;
  assertNameFree(
    input.name,
    existing.map((d) => d.name),
    existing.filter((d) => d.engine === input.engine).map((d) => d.name),
    'database',
  );
  const cap = databaseCap(ctx);
  if (existing.length >= cap.max) throw new ApiError('LIMIT_REACHED', cap.message);
  const physicalName = physicalDatabaseName(input.name);
  const mainUser = `u_${physicalName}`;
  const mainPassword = randomPassword();
  const engine = engineOf(input.engine);
  await engine.createDatabase({ config, adapters }, physicalName, { user: mainUser, secret: mainPassword });
  const row: DatabaseRow = {
    id: newId(),
    projectId,
    name: input.name,
    engine: input.engine,
    replicaSet: input.replicaSet,
    status: 'running',
    physicalName,
    mainUser,
    mainPasswordCiphertext: await config.keyring.encrypt(mainPassword),
    readerUser: null,
    readerPasswordCiphertext: null,
    readerHanded: false,
    writerUser: null,
    writerPasswordCiphertext: null,
    writerHanded: false,
    mainExposed: false,
    ownershipPending: false,
    deletedAt: null,
    createdAt: new Date(),
  };
  try {
    // The shared read-only login, what read-only apps connected while it is stopped get.
    if (engine.sharedReader)
      Object.assign(
        row,
        await outside('create the database', () => createSharedReader(config, adapters, row)),
      );
    await writeNewService(
      ctx,
      { kind: 'database', resource: row },
      read.initial,
      (db) => db.insert(databases).values(row),
      { engine: row.engine },
      // Two creations at once each saw room: the second to land is refused (nothing kept).
      guard(
        sql`(select count(*) from databases where project_id = ${projectId}::uuid and deleted_at is null) <= ${cap.max}`,
        { code: 'LIMIT_REACHED', message: cap.message },
      ),
    );
    return row;
  } catch (err) {
    const logins = [mainUser, ...(engine.sharedReader ? [readerUserOf(physicalName)] : [])];
    await engine.dropDatabase({ config, adapters }, physicalName, logins).catch(() => undefined);
    throw err;
  }
}

/** Stops or starts a database: the cluster first, then one statement (404 if it was deleted meanwhile). */
export async function setDatabaseRunning(
  ctx: RequestContext,
  { row, running }: { row: DatabaseRow; running: boolean },
): Promise<DatabaseRow> {
  const db = ctx.http;
  await engineOf(row.engine).setRunning(ctx, row.physicalName, running);
  const live = and(eq(databases.id, row.id), isNull(databases.deletedAt));
  const event = {
    action: running ? 'database.start' : 'database.stop',
    target: { type: 'database', id: row.id, name: row.name },
    projectId: row.projectId,
  };
  const [, updated] = await runBatch(db, [
    activityQuery(db, ctx.activity, event, sql`exists (select 1 from databases where ${live})`),
    db
      .update(databases)
      .set({ status: running ? 'running' : 'stopped' })
      .where(live)
      .returning(),
  ]);
  return databaseOf(updated as DatabaseRow[]);
}

/**
 * Deletes a database for real, then marks its record deleted, revokes its principals and
 * removes its connections in one guarded batch after the request's read of its holders (a
 * holding site changed meanwhile: ConcurrentChange, and the retry drops again, idempotently;
 * the database deleted meanwhile: 404). `logins` are the roles its connections and principals
 * hold, read with the holders (serviceLoginNamesQuery).
 */
export async function deleteDatabase(
  ctx: RequestContext,
  row: DatabaseRow,
  holders: ServiceHolders,
  logins: string[],
): Promise<void> {
  const { config, adapters } = ctx;
  // Its connections' and principals' logins go with it (contract §7: deleting revokes principals).
  const shared = [row.readerUser, row.writerUser].filter((u): u is string => u !== null);
  const loginRoles = [row.mainUser, ...shared, ...logins];
  await engineOf(row.engine).dropDatabase({ config, adapters }, row.physicalName, loginRoles);
  const db = ctx.http;
  // Disconnects every site (live patches, managed keys), as DELETE of each connection does.
  const { written } = await writeServiceRemoval(
    db,
    config,
    { projectId: row.projectId, kind: 'database', id: row.id, name: row.name },
    holders,
    {
      after: [
        db.execute(
          guardRows(
            sql`update databases set deleted_at = now() where id = ${row.id}::uuid and deleted_at is null returning id`,
            { code: 'NOT_FOUND', message: 'database not found' },
          ),
        ),
        revokeDatabasePrincipals(db, row.id),
      ],
    },
    ctx.activity,
  );
  await afterCommit(ctx, written, new Map([[row.id, { kind: 'database', resource: row }]]));
}
