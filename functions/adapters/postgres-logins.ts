/**
 * Listing the connection login roles (`c_` and 8 of [a-z0-9]) on the cluster, for the reconciler's
 * orphan and repair steps: each with the groups it belongs to and the creation time stamped in its comment.
 */
import type { LoginScope, PgLogin } from './postgres-admin-interface';
import type { AdminRun } from './postgres-pins';
import { LOGIN_COMMENT } from './postgres-sql';

/** Every connection login role on the cluster in `scope`, with its groups and when it was made. */
export async function listLoginRoles(run: AdminRun, scope: LoginScope = {}): Promise<PgLogin[]> {
  // Every condition compares rolname as the `name` it is (C-ordered), so pg_authid's index on it
  // finds the range and the page; a text cast, the pattern or a GROUP BY over the join in the
  // same query had the planner read and aggregate every role of the cluster before LIMIT
  // (0.8 s at 65,000 roles, estimated at a dozen rows, so nested loops over the whole set).
  const where = [
    `rolname OPERATOR(pg_catalog.>=) 'c_'::pg_catalog.name`,
    `rolname OPERATOR(pg_catalog.<) 'c\`'::pg_catalog.name`,
  ];
  const params: unknown[] = [];
  if (scope.names) {
    params.push(scope.names);
    where.push(`rolname OPERATOR(pg_catalog.=) ANY($${params.length}::pg_catalog.name[])`);
  }
  if (scope.after !== undefined) {
    params.push(scope.after);
    where.push(`rolname OPERATOR(pg_catalog.>) $${params.length}::pg_catalog.name`);
  }
  const limit = scope.limit === undefined ? '' : `LIMIT ${Math.max(1, Math.floor(scope.limit))}`;
  return run(async (client) => {
    // The page is taken by name first and the pattern applied to it: only the page's roles
    // have their groups and comment looked up (by index, one probe each).
    const result = await client.query<{ name: string; groups: string[] | null; comment: string | null }>(
      `SELECT r.rolname::pg_catalog.text AS name,
              ARRAY(SELECT g.rolname::pg_catalog.text FROM pg_catalog.pg_auth_members m
                      JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.roleid
                     WHERE m.member OPERATOR(pg_catalog.=) r.oid ORDER BY 1) AS groups,
              (SELECT d.description FROM pg_catalog.pg_shdescription d
                WHERE d.objoid OPERATOR(pg_catalog.=) r.oid
                  AND d.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_authid'::pg_catalog.regclass) AS comment
         FROM (SELECT oid, rolname FROM pg_catalog.pg_roles
                WHERE ${where.join(' AND ')}
                ORDER BY rolname ${limit}) r
        WHERE r.rolname::pg_catalog.text OPERATOR(pg_catalog.~) '^c_[a-z0-9]{8}$'
        ORDER BY r.rolname`,
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
