/**
 * The platforms' own limits, hit through the API against stand-ins that enforce them as
 * documented: a clear refusal naming the limit, and nothing made or recorded.
 * - Atlas holds at most 100 database users a project (each MongoDB connection and principal
 *   takes one): the next principal is 409 CONFLICT naming the limit, no user is made and no
 *   principal recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATLAS_MAX_USERS } from '../../scripts/local/stand-ins/mongodb-atlas-stand-in';
import {
  type ConnectionsWorld,
  createDatabase,
  type Seeded,
  seed,
  startConnectionsWorld,
} from '../helpers/connections';

let world: ConnectionsWorld;
let s: Seeded;

beforeAll(async () => {
  world = await startConnectionsWorld();
  s = await seed(world.worker.baseUrl, 0);
}, 120_000);
afterAll(() => world?.stop());

const named = (name: string) => ({ name, level: 'read-only' });
/** Requests to make a database user the stand-in received. */
const userPosts = () =>
  world.atlas.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/databaseUsers')).length;

describe("Atlas's 100 database users a project", () => {
  it('the principal past the limit is 409 naming it; no user is made and none recorded', async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb');
    const base = `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`;
    expect((await s.as.post(base, named('first'))).status).toBe(201);
    expect(world.atlas.fillToLimit()).toBe(ATLAS_MAX_USERS);
    const posts = userPosts();
    const res = await s.as.post<{ error: { code: string; message: string } }>(base, named('past-limit'));
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toMatch(/Atlas's limit of database users \(100 a project/);
    expect(res.body.error.message).toMatch(/nothing was changed/);
    // Asked once (no retry against a limit), and nothing made: still exactly at the limit.
    expect(userPosts()).toBe(posts + 1);
    expect(world.atlas.fillToLimit()).toBe(ATLAS_MAX_USERS);
    const list = await s.as.get<{ principals: Array<{ name: string }> }>(base);
    expect(list.body.principals.map((p) => p.name)).toEqual(['first']);
  });
});
