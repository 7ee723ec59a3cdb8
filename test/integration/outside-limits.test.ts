/**
 * The platforms' own limits, hit through the API against stand-ins that enforce them as
 * documented: a clear refusal naming the limit, and nothing made or recorded.
 * - Atlas holds at most 100 database users a project (each MongoDB connection and principal
 *   takes one): the next principal is 409 CONFLICT naming the limit, no user is made and no
 *   principal recorded.
 * - Atlas limits the request rate (429 RATE_LIMITED_TOKEN_BUCKET with Retry-After): a refused
 *   call is sent again after the wait; past a few refusals the answer is 503 with Retry-After.
 * - IAM limits the request rate (400 Throttling): sent again with backoff; past a few refusals,
 *   503 with Retry-After and nothing made.
 * - IAM holds at most 2 access keys a user: a rotation (new key, then the old one deleted) of a
 *   key whose user holds two is 409 CONFLICT naming the limit, and both keys stay as they were.
 * - IAM holds at most 5,000 users an account (each bucket and each bucket key is one): at the
 *   quota a bucket connection or a new bucket is 409 CONFLICT naming it, nothing left behind.
 */
import { describe, expect, it } from 'vitest';
import { USERS_PER_ACCOUNT } from '../../scripts/local/stand-ins/iam-actions';
import { ATLAS_MAX_USERS } from '../../scripts/local/stand-ins/mongodb-atlas-stand-in';
import { allEvents } from '../helpers/activity';
import { connectionsPath, connectSite, createBucket, createDatabase, metadata } from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';

const world = connectionsWorldForFile();
// Two sites: a new service in a one-site project would be connected to it on creation.
const s = seededForFile(2, () => world.worker.baseUrl);

const named = (name: string) => ({ name, level: 'read-only' });
type Refusal = { error: { code: string; message: string } };

/** The IAM user holding access key `keyId` at the stand-in, with its keys. */
function keyUser(keyId: string): { name: string; keys: string[] } {
  const user = Object.values(world.aws.state().users).find((u) => u.keys.some((k) => k.id === keyId));
  if (!user) throw new Error(`no IAM user holds ${keyId}`);
  return { name: user.name, keys: user.keys.map((k) => k.id) };
}

/** The site's stored bucket key id. */
async function storedKey(bucketId: string): Promise<string> {
  const [row] = await metadata<{ name: string }>(
    `select credential_name as name from connections where site_id = $1 and resource_id = $2`,
    [s.sites[0]?.id, bucketId],
  );
  return row?.name as string;
}

describe("Atlas's request rate", () => {
  it('a call refused with 429 is sent again after Retry-After and then succeeds', async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb');
    const before = world.atlas.throttle.refused;
    world.atlas.throttle.refuseNext(2);
    const res = await s.as.post(
      `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`,
      named('paced'),
    );
    expect(res.status, res.text).toBe(201);
    expect(world.atlas.throttle.refused).toBe(before + 2);
  });

  it('refused on every attempt: 503 with Retry-After naming the rate limit, nothing made', async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb');
    const base = `/api/v1/projects/${s.project.id}/databases/${db.id}/principals`;
    const posts = userPosts();
    world.atlas.throttle.refuseNext(3);
    const res = await s.as.post<Refusal>(base, named('too-fast'));
    expect(res.status, res.text).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/limit on the rate of requests; nothing was changed/);
    expect(userPosts()).toBe(posts);
    expect((await s.as.get<{ principals: unknown[] }>(base)).body.principals).toEqual([]);
  });
});

describe("IAM's request rate and its 2 access keys a user", () => {
  it('a call refused with Throttling is sent again with backoff and the connect succeeds', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    const before = world.aws.throttle.refused;
    world.aws.throttle.refuseNext(2);
    const res = await connectSite(s, { kind: 'bucket', resource_id: bucket.id, level: 'read-write' });
    expect(res.status, res.text).toBe(201);
    expect(world.aws.throttle.refused).toBe(before + 2);
    expect(keyUser(await storedKey(bucket.id)).keys).toHaveLength(1);
  });

  it('throttled on every attempt: 503 with Retry-After naming the rate limit, no key and no connection', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    const users = Object.keys(world.aws.state().users).length;
    world.aws.throttle.refuseNext(4);
    const res = await s.as.post<Refusal>(connectionsPath(s), {
      kind: 'bucket',
      resource_id: bucket.id,
      level: 'read-write',
    });
    expect(res.status, res.text).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body.error.message).toMatch(/limit on the rate of requests; nothing was changed/);
    expect(Object.keys(world.aws.state().users)).toHaveLength(users);
    expect(await storedKey(bucket.id)).toBeUndefined();
  });

  it('rotating a key whose user holds 2 keys is 409 naming the limit; both keys and the stored one stay', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    expect((await connectSite(s, { kind: 'bucket', resource_id: bucket.id, level: 'read' })).status).toBe(
      201,
    );
    const stored = await storedKey(bucket.id);
    const user = keyUser(stored);
    // A second key made outside Tether, as in the IAM console.
    world.aws.addAccessKey(user.name);
    const held = keyUser(stored).keys;
    expect(held).toHaveLength(2);
    const path = `${connectionsPath(s)}/bucket/${bucket.id}/rotate`;
    const activity = (await allEvents(s.as, `/api/v1/projects/${s.project.id}/activity`)).length;
    const res = await s.as.post<Refusal>(path);
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toMatch(/IAM's limit of access keys \(2 a user/);
    expect(res.body.error.message).toMatch(/nothing was changed/);
    expect(keyUser(stored).keys).toEqual(held);
    expect(await storedKey(bucket.id)).toBe(stored);
    expect(await allEvents(s.as, `/api/v1/projects/${s.project.id}/activity`)).toHaveLength(activity);
  });
});
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

// Last in the file: it leaves the stand-in's account at its quota.
describe("IAM's 5,000 users an account", () => {
  it('at the quota, a bucket connection and a new bucket are 409 naming it; nothing is made or recorded', async () => {
    const bucket = await createBucket(s.as, s.project.id);
    const buckets = `/api/v1/projects/${s.project.id}/buckets`;
    const listed = (await s.as.get<{ buckets: unknown[] }>(buckets)).body.buckets.length;
    expect(world.aws.fillUsersToQuota()).toBe(USERS_PER_ACCOUNT);
    const storageBuckets = Object.keys(world.aws.state().buckets).length;

    const connect = await connectSite(s, { kind: 'bucket', resource_id: bucket.id, level: 'read' });
    expect(connect.status, connect.text).toBe(409);
    const refused = connect.body as unknown as Refusal;
    expect(refused.error.code).toBe('CONFLICT');
    expect(refused.error.message).toMatch(/IAM account holds its limit of users \(5,000 an account/);
    expect(refused.error.message).toMatch(/nothing was changed/);
    expect(await storedKey(bucket.id)).toBeUndefined();

    const made = await s.as.post<Refusal>(buckets, { name: 'past-quota' });
    expect(made.status, made.text).toBe(409);
    expect(made.body.error.message).toMatch(/limit of users \(5,000 an account/);
    expect((await s.as.get<{ buckets: unknown[] }>(buckets)).body.buckets).toHaveLength(listed);
    // The bucket made at the provider before its key was refused is taken back.
    expect(Object.keys(world.aws.state().buckets)).toHaveLength(storageBuckets);
    expect(Object.keys(world.aws.state().users)).toHaveLength(USERS_PER_ACCOUNT);
  });
});
