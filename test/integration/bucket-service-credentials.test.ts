/**
 * A bucket's own key and the end of its principals (contract §7) through the AWS stand-in, every
 * key judged by S3 requests signed with SigV4 and the IAM policy evaluator: a rotation of the
 * bucket's own key changes no app's key; an expired principal is listed `expired:true` until the
 * reconciler removes it and its key; deleting the bucket revokes its principals.
 */
import { AwsClient } from 'aws4fetch';
import { describe, expect, it } from 'vitest';
import {
  connectionsPath,
  createBucket,
  deliveriesOf,
  effectiveVars,
  metadata,
  projectPath,
} from '../helpers/connections';
import { eventually } from '../helpers/eventually';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';
import { triggerScheduled } from '../helpers/worker';

type Key = { access_key_id: string; secret_access_key: string };
type Listed = { principals: Array<{ id: string; expired: boolean }> };

const world = connectionsWorldForFile();
const s = seededForFile(1, () => world.worker.baseUrl);
const reconcile = () => triggerScheduled(world.worker.baseUrl);

/** A bucket of the project with its physical name and API base. */
async function bucket() {
  const b = await createBucket(s.as, s.project.id);
  const base = `${projectPath(s)}/buckets/${b.id}`;
  const creds = await s.as.get<{ bucket: string }>(`${base}/credentials`);
  expect(creds.status, creds.text).toBe(200);
  return { ...b, base, physical: creds.body.bucket };
}

/** The status of a LIST of `physical` signed with `key`. */
async function listStatus(physical: string, key: Key): Promise<number> {
  const client = new AwsClient({
    accessKeyId: key.access_key_id,
    secretAccessKey: key.secret_access_key,
    retries: 0,
  });
  const res = await client.fetch(`${world.aws.url}/${physical}?list-type=2`, {
    aws: { service: 's3', region: 'us-east-1' },
  });
  return res.status;
}

async function principal(base: string, body: Record<string, unknown>): Promise<Key & { id: string }> {
  const res = await s.as.post<Key & { id: string }>(`${base}/principals`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Lets the reconciler send the bucket's queued key cleanups now, as if a minute had passed. */
async function sendCleanups(resourceId: string): Promise<void> {
  await metadata(
    "update credential_cleanups set created_at = now() - interval '2 minutes' where resource_id = $1",
    [resourceId],
  );
  await reconcile();
}

describe("a bucket's own key and its principals' end", () => {
  it("shows the bucket's own key; a rotation of it leaves a connected app's key, variables and deliveries as they were", async () => {
    const b = await bucket();
    // The project's only site was connected to the new bucket at once.
    const site = s.sites[0]?.id as string;
    const listed = await s.as.get<{ connections: Array<{ resource_id: string }> }>(connectionsPath(s, site));
    expect(listed.body.connections.map((c) => c.resource_id)).toContain(b.id);
    const own = await s.as.get<Key & Record<string, string>>(`${b.base}/credentials`);
    expect(Object.keys(own.body).sort()).toEqual([
      'access_key_id',
      'bucket',
      'endpoint',
      'region',
      'secret_access_key',
    ]);
    const n = b.name.toUpperCase().replace(/-/g, '_');
    const varsBefore = await effectiveVars(s, site);
    const app: Key = {
      access_key_id: varsBefore[`STORAGE_${n}_ACCESS_KEY`] ?? '',
      secret_access_key: varsBefore[`STORAGE_${n}_SECRET_KEY`] ?? '',
    };
    expect(app.access_key_id).not.toBe(own.body.access_key_id);
    expect(await listStatus(b.physical, app)).toBe(200);
    const patchesBefore = (await deliveriesOf(site)).length;

    const rotated = await s.as.post<Key>(`${b.base}/credentials/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(await listStatus(b.physical, own.body)).toBe(403);
    expect(await listStatus(b.physical, rotated.body)).toBe(200);
    expect(await listStatus(b.physical, app)).toBe(200);
    expect(await effectiveVars(s, site)).toEqual(varsBefore);
    expect((await deliveriesOf(site)).slice(patchesBefore)).toEqual([]);
  });

  it('an expired principal is listed expired:true until the reconciler removes it, with its key', async () => {
    const b = await bucket();
    const p = await principal(b.base, {
      name: 'temp',
      level: 'read',
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(await listStatus(b.physical, p)).toBe(200);
    // The hour passes for the record; IAM's own clock condition is proven in principals-bucket.
    await metadata("update principals set expires_at = now() - interval '1 second' where id = $1", [p.id]);
    const listed = await s.as.get<Listed>(`${b.base}/principals`);
    expect(listed.body.principals).toEqual([expect.objectContaining({ id: p.id, expired: true })]);
    // The reconciler's remove-expired-principals step deletes the key at IAM, then the row.
    await reconcile();
    expect((await s.as.get<Listed>(`${b.base}/principals`)).body.principals).toEqual([]);
    expect(await listStatus(b.physical, p)).toBe(403);
  });

  it('deleting the bucket revokes its principals: they leave with it and their keys stop working', async () => {
    const b = await bucket();
    const p = await principal(b.base, { name: 'partner', level: 'read-write' });
    expect(await listStatus(b.physical, p)).toBe(200);
    expect((await s.as.delete(b.base)).status).toBe(200);
    expect((await s.as.get(`${b.base}/principals`)).status).toBe(404);
    await sendCleanups(b.id);
    const usersOf = () =>
      Object.values(world.aws.state().users).filter((u) => u.path === `/tether/${b.physical}/`).length;
    await eventually(
      async () => usersOf(),
      (count) => count === 0,
      30_000,
      "the bucket's keys removed",
    );
    expect(await listStatus(b.physical, p)).toBe(403);
  });
});
