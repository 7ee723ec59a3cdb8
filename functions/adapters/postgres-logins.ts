/**
 * Listing the connection login roles (`c_` and 8 of [a-z0-9]) on the cluster, for the reconciler's
 * orphan and repair steps: each with the groups it belongs to and the creation time stamped in its comment.
 */
import type { LoginScope, PgLogin } from './postgres-admin-interface';
import type { AdminRun } from './postgres-pins';
import { LOGIN_COMMENT } from './postgres-sql';

/** Every connection login role on the cluster in `scope`, with its groups and when it was made. */
export async function listLoginRoles(run: AdminRun, scope: LoginScope = {}): Promise<PgLogin[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (scope.names) {
    params.push(scope.names);
    where.push(`r.rolname::pg_catalog.text OPERATOR(pg_catalog.=) ANY($${params.length}::pg_catalog.text[])`);
  }
  if (scope.after !== undefined) {
    params.push(scope.after);
    where.push(
      `(r.rolname::pg_catalog.text COLLATE "C") OPERATOR(pg_catalog.>) $${params.length}::pg_catalog.text`,
    );
  }
  const limit = scope.limit === undefined ? '' : `LIMIT ${Math.max(1, Math.floor(scope.limit))}`;
  return run(async (client) => {
    const result = await client.query<{ name: string; groups: string[] | null; comment: string | null }>(
      `SELECT r.rolname::pg_catalog.text AS name,
              pg_catalog.array_agg(g.rolname::pg_catalog.text) FILTER (WHERE g.rolname IS NOT NULL) AS groups,
              pg_catalog.shobj_description(r.oid, 'pg_authid') AS comment
         FROM pg_catalog.pg_roles r
         LEFT JOIN pg_catalog.pg_auth_members m ON m.member OPERATOR(pg_catalog.=) r.oid
         LEFT JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.roleid
        WHERE r.rolname::pg_catalog.text OPERATOR(pg_catalog.~) '^c_[a-z0-9]{8}$'
          ${where.map((w) => `AND ${w}`).join(' ')}
        GROUP BY r.oid, r.rolname
        ORDER BY r.rolname::pg_catalog.text COLLATE "C" ${limit}`,
      params,
    );
    return result.rows.map((row) => {
      const stamp = row.comment?.startsWith(LOGIN_COMMENT)
        ? new Date(row.comment.slice(LOGIN_COMMENT.length))
        : null;
      return {
        name: row.name,
        groups: row.groups ?? [],
        createdAt: stamp && !Number.isNaN(stamp.getTime()) ? stamp : null,
      };
    });
  });
}
