/**
 * The reads of the management API's listings as statements to send with the caller's lookup
 * (a route's declared reads, routes/declared-reads.ts): one round trip for the caller, its access and the data.
 * Each reads the project the path names by its reference, so it needs nothing the caller
 * lookup returns; its rows are only shown once that caller is admitted. Each statement returns
 * one row with one JSON column of compact arrays (cheaper to build and parse than objects).
 */
import { sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import { projectIdOf } from './caller/api-caller';

/** A site as the listing returns it: id, slug, created_at. */
export type SiteTuple = [string, string, string];

/** The project `ref` names' sites, oldest first, as {@link SiteTuple}s in the one row's `sites`. */
export const sitesOfProject = (db: HttpDb, ref: string) =>
  db.execute<{ sites: SiteTuple[] }>(sql`
    select coalesce(json_agg(json_build_array(s.id, s.slug, s.created_at) order by s.created_at, s.id), '[]') as sites
      from sites s where s.project_id = ${projectIdOf(ref)}`);
