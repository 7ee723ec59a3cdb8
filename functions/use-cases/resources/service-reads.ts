/** The reads of a kind's services its routes send with their caller, from the kind's descriptor. */
import type { SQL } from 'drizzle-orm';
import type { BatchQuery, HttpDb, Queryable } from '../../../db/client';
import { type CredentialKindName, credentialsOf } from '../../kinds/registry';
import type { ResourceOf } from '../../kinds/service-kind';
import { serviceCreationQueries } from './new-service-write';

/**
 * Kind `kind`'s reads: the project's live services (`list`), live service `id` of project
 * `projectId` (SQL when sent with the caller's lookup; an id that is not a uuid names none) and
 * the 404 of none (`query`, `of`), and what a creation reads with its caller (`creation`:
 * the live services for the name checks, then the project's only site's; decode with
 * creationReadFrom).
 */
export function serviceReads<K extends CredentialKindName>(kind: K) {
  return {
    list: (db: Queryable, projectId: string | SQL) => credentialsOf(kind).listQuery(db, projectId),
    query: (db: Queryable, projectId: string | SQL, id: string) =>
      credentialsOf(kind).liveQuery(db, projectId, id),
    of: (rows: ResourceOf[K][]): ResourceOf[K] => credentialsOf(kind).liveOf(rows),
    creation: (db: HttpDb, projectId: SQL): BatchQuery[] => serviceCreationQueries(db, kind, projectId),
  };
}
