/**
 * A PostgreSQL database of a seeded project, its credentials as the API shows them, sessions
 * that `sessions` keeps for the file's `afterAll`, and a named principal made through the API
 * (contract §7).
 */

import type pg from 'pg';
import { afterAll, expect } from 'vitest';
import { createDatabase, type Seeded } from './connections';
import { seededForFile } from './for-file';
import { loginAs } from './pg-login';

/** A database's own credentials as GET/rotate credentials answer. */
export type Creds = { user: string; password: string; url: string; external_url: string; pooled_url: string };
export type Shown = {
  id: string;
  name: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  created_at: string;
  username: string;
  password: string;
  url: string;
};

/** The database, session and principal makers of the project `world()` names (read when called). */
export function postgresPrincipals(world: () => Seeded, sessions: pg.Client[]) {
  /** A new database of the project, its physical name, credentials and API path. */
  async function database() {
    const db = await createDatabase(world().as, world().project.id);
    const res = await world().as.get<Creds>(
      `/api/v1/projects/${world().project.id}/databases/${db.id}/credentials`,
    );
    expect(res.status, res.text).toBe(200);
    const physical = new URL(res.body.url).pathname.slice(1);
    return {
      ...db,
      physical,
      creds: res.body,
      base: `/api/v1/projects/${world().project.id}/databases/${db.id}`,
    };
  }

  /** A session as `user`, ended by the file's `afterAll`. */
  async function session(physical: string, user: string, password: string) {
    const s = await loginAs(physical, user, password);
    sessions.push(s);
    return s;
  }

  /** A principal made with `body` on the database at `base`; 201 or the test fails. */
  async function principal(base: string, body: Record<string, unknown>): Promise<Shown> {
    const res = await world().as.post<Shown>(`${base}/principals`, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  }

  return { database, session, principal };
}

/**
 * For a test file: a project of `siteCount` sites on the shared Worker, seeded before its first
 * test, the makers of {@link postgresPrincipals} on it, and `sessions`, ended by its `afterAll`.
 */
export function postgresPrincipalsForFile(siteCount = 1) {
  const world = seededForFile(siteCount);
  const sessions: pg.Client[] = [];
  afterAll(async () => {
    for (const s of sessions) await s.end().catch(() => undefined);
  });
  return { world, sessions, ...postgresPrincipals(() => world, sessions) };
}
