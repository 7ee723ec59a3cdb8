/**
 * Bucket principals (contract §7) through the AWS stand-in: S3 requests signed with SigV4 by
 * the principal's own key, authorised by the IAM policy evaluator over its inline policy
 * (level, aws:SourceIp and aws:CurrentTime conditions), as AWS would.
 */
import { AwsClient } from 'aws4fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededProject, type Service, seedProject } from '../helpers/connections';
import { connectionsWorldForFile } from '../helpers/for-file';

const world = connectionsWorldForFile();
let s: SeededProject;
let base: string;
let bucketName: string;

beforeAll(async () => {
  s = await seedProject(world.worker.baseUrl, 2, { buckets: 1 });
  base = `/api/v1/projects/${s.project.id}/buckets/${(s.buckets[0] as Service).id}`;
  const creds = await s.as.get<{ bucket: string }>(`${base}/credentials`);
  expect(creds.status, creds.text).toBe(200);
  bucketName = creds.body.bucket;
});

type Shown = { id: string; access_key_id: string; secret_access_key: string };

async function principal(body: Record<string, unknown>): Promise<Shown> {
  const res = await s.as.post<Shown>(`${base}/principals`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The statuses of GET, LIST, PUT and DELETE on the bucket with `key`. */
async function statuses(key: Shown): Promise<Record<string, number>> {
  const client = new AwsClient({
    accessKeyId: key.access_key_id,
    secretAccessKey: key.secret_access_key,
    retries: 0,
  });
  const url = `${world.aws.url}/${bucketName}`;
  const send = async (method: string, path: string, body?: string) =>
    (await client.fetch(`${url}${path}`, { method, body, aws: { service: 's3', region: 'us-east-1' } }))
      .status;
  return {
    put: await send('PUT', '/probe.txt', 'x'),
    get: await send('GET', '/seed.txt'),
    list: await send('GET', '?list-type=2'),
    delete: await send('DELETE', '/probe.txt'),
  };
}

describe('bucket principals', () => {
  it('the bucket key is shown and rotates; a read principal may GET and LIST, never PUT or DELETE', async () => {
    const own = await s.as.get<Shown & { endpoint: string; region: string }>(`${base}/credentials`);
    const writer = { ...own.body };
    expect((await statuses(writer)).put).toBe(200);
    const client = new AwsClient({
      accessKeyId: writer.access_key_id,
      secretAccessKey: writer.secret_access_key,
      retries: 0,
    });
    await client.fetch(`${world.aws.url}/${bucketName}/seed.txt`, {
      method: 'PUT',
      body: 'seed',
      aws: { service: 's3', region: 'us-east-1' },
    });
    const rotated = await s.as.post<Shown>(`${base}/credentials/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.access_key_id).not.toBe(writer.access_key_id);
    expect((await statuses(writer)).get).toBe(403);
    expect((await statuses(rotated.body)).get).toBe(200);

    const reader = await principal({ name: 'reader', level: 'read' });
    const r = await statuses(reader);
    expect([r.get, r.list, r.put, r.delete]).toEqual([200, 200, 403, 403]);
    const listing = await s.as.get<{ principals: Array<{ access_key_id: string }> }>(`${base}/principals`);
    expect(listing.body.principals.map((p) => p.access_key_id)).toEqual([reader.access_key_id]);
    expect(JSON.stringify(listing.body)).not.toContain(reader.secret_access_key);
  });

  it('a source outside the allowlist is refused by the policy; inside it is allowed', async () => {
    const outside = await principal({ name: 'elsewhere', level: 'read', allowed_sources: ['127.0.0.2'] });
    const inside = await principal({ name: 'here', level: 'read', allowed_sources: ['127.0.0.0/8'] });
    expect((await statuses(outside)).list).toBe(403);
    expect((await statuses(inside)).list).toBe(200);
  });

  it('after its expiry IAM refuses the key; rotate and revoke end the old key', async () => {
    const temp = await principal({
      name: 'temp',
      level: 'read',
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect((await statuses(temp)).list).toBe(200);
    world.aws.advanceClock(2 * 3600_000);
    try {
      expect((await statuses(temp)).list).toBe(403);
    } finally {
      world.aws.advanceClock(-2 * 3600_000);
    }
    const rotated = await s.as.post<Shown>(`${base}/principals/${temp.id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect((await statuses(temp)).list).toBe(403);
    expect((await statuses(rotated.body)).list).toBe(200);
    const revoked = await s.as.delete(`${base}/principals/${temp.id}`);
    expect(revoked.body).toEqual({ revoked: true });
    expect((await statuses(rotated.body)).list).toBe(403);
  });
});
