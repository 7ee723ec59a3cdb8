/**
 * The reads of the management API's listings as statements to send with the caller's lookup
 * (routes/shared.ts readWithCaller): one round trip for the caller, its access and the data.
 * Each reads the project the path names by its reference, so it needs nothing the caller
 * lookup returns; its rows are only shown once that caller is admitted. Each statement returns
 * one row with one JSON column of compact arrays (cheaper to build and parse than objects).
 */
import type { Statement } from '../../db/client';
import { projectIdSql } from './principal';

/** A statement over project `ref` (`$1`), its text built once per kind of reference. */
function projectStatement(build: (projectId: string) => string): (ref: string) => Statement {
  const texts = new Map<string, string>();
  return (ref) => {
    const { sql, param } = projectIdSql(ref, 1);
    let text = texts.get(sql);
    if (text === undefined) {
      text = build(sql);
      texts.set(sql, text);
    }
    return { text, params: [param] };
  };
}

/** A site as the listing returns it: id, slug, created_at. */
export type SiteTuple = [string, string, string];

/** The project's sites, oldest first, as {@link SiteTuple}s in column `sites`. */
export const sitesOfProject = projectStatement(
  (projectId) => `
  select coalesce(json_agg(json_build_array(s.id, s.slug, s.created_at) order by s.created_at, s.id), '[]') as sites
    from sites s where s.project_id = ${projectId}`,
);
