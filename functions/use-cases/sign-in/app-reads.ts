/** Reads of auth apps by project or by the uuid or app_id a path names; queries can be batched. */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../../db/client';
import type { AuthAppRow } from '../../../db/rows';
import { authApps } from '../../../db/schema';
import { SERVICE_NAME_RE } from '../../domain/names';
import { isUuid } from '../../lib/ids';

/** Lists a project's auth apps, oldest first. */
export function listAuthApps(db: Queryable, projectId: string | SQL) {
  return db
    .select()
    .from(authApps)
    .where(eq(authApps.projectId, projectId))
    .orderBy(authApps.createdAt, authApps.id);
}

/** Finds an auth app by uuid or app_id (the caller checks it belongs to the project). */
export async function findAuthApp(db: Queryable, idOrAppId: string): Promise<AuthAppRow | undefined> {
  const [row] = await authAppQuery(db, idOrAppId);
  return row;
}

/** The auth app a path names by uuid or app_id (what can be neither names none). */
function authAppWhere(idOrAppId: string): SQL {
  // A NUL byte would not even reach Postgres.
  if (isUuid(idOrAppId)) return eq(authApps.id, idOrAppId.toLowerCase()) as SQL;
  return SERVICE_NAME_RE.test(idOrAppId) ? (eq(authApps.appId, idOrAppId) as SQL) : sql`false`;
}

/** The query of {@link findAuthApp}, to send with the caller's lookup (at most one row). */
export function authAppQuery(db: Queryable, idOrAppId: string) {
  return db.select().from(authApps).where(authAppWhere(idOrAppId)).limit(1);
}

/** SQL for the id of the auth app a path names, for a read sent with {@link authAppQuery}. */
export function authAppIdOf(idOrAppId: string): SQL {
  return sql`(select ${authApps.id} from ${authApps} where ${authAppWhere(idOrAppId)})`;
}
