/**
 * The reads every kind whose services keep their rows once removed (`deleted_at`) makes of its
 * table: its rows by id, the live service a project names, and the 404 of none.
 */
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { buckets, databases } from '../../db/schema';
import { ApiError } from '../lib/errors';
import { isUuid } from '../lib/ids';
import type { CredentialKind, CredentialKindName, ResourceOf, RowsQuery } from './service-kind';

/** The tables of such kinds. */
type SoftDeletedTable = typeof databases | typeof buckets;

/** {@link CredentialKind}'s reads of the kind `K` stored in `table`, named `word` in a 404. */
export function softDeletedRows<K extends CredentialKindName>(
  table: SoftDeletedTable,
  word: string,
): Pick<CredentialKind<K>, 'rowsQuery' | 'listQuery' | 'liveQuery' | 'liveOf'> {
  // The tables share the columns read here; drizzle cannot select from a union of tables, so one stands for both.
  const t = table as typeof databases;
  const rows = (query: unknown) => query as RowsQuery<ResourceOf[K]>;
  return {
    rowsQuery: (db, ids: string[] | SQL) =>
      rows(
        db
          .select()
          .from(t)
          .where(Array.isArray(ids) ? inArray(t.id, ids) : sql`${t.id} in (${ids})`),
      ),
    listQuery: (db, projectId) =>
      rows(
        db
          .select()
          .from(t)
          .where(and(eq(t.projectId, projectId), isNull(t.deletedAt)))
          .orderBy(t.createdAt),
      ),
    liveQuery: (db, projectId, id) =>
      rows(
        db
          .select()
          .from(t)
          .where(
            and(
              isUuid(id) ? eq(t.id, id.toLowerCase()) : sql`false`,
              eq(t.projectId, projectId),
              isNull(t.deletedAt),
            ),
          ),
      ),
    liveOf(found) {
      const [row] = found as ResourceOf[K][];
      if (!row) throw new ApiError('NOT_FOUND', `${word} not found`);
      return row;
    },
  };
}

/** A kind's `nameTaken`: the 409 `message(name)` when the violated constraint is its unique `constraint`. */
export const nameTakenOn =
  (constraint: string, message: (name: string) => string) =>
  (violated: string | undefined, name: string): ApiError | undefined =>
    violated === constraint ? new ApiError('CONFLICT', message(name)) : undefined;
