/**
 * How request bodies are read: every management API body is JSON whatever media type the client declared, a
 * GET's objects can be sent back as they are, and an unknown field is still a 400.
 */
import { describe, expect, it } from 'vitest';
import { createAuthApp, createBucket, createSite, deliveriesOf } from '../helpers/connections';
import { seededForFile } from '../helpers/for-file';

const s = seededForFile(2);
const conns = (site: string) => `/api/v1/projects/${s.project.id}/sites/${site}/connections`;

describe('a JSON body without a JSON media type', () => {
  it("is read as JSON when sent as text/plain (fetch's default for a string body)", async () => {
    const site = await createSite(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    const res = await s.as.post(conns(site.id), undefined, {
      rawBody: JSON.stringify({ kind: 'auth_app', resource_id: app.id }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'auth_app', resource_id: app.id, level: 'client' });
  });

  it('is read as JSON when no content type is sent at all', async () => {
    const site = await createSite(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    const res = await fetch(`${s.as.baseUrl}${conns(site.id)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}` },
      body: new TextEncoder().encode(JSON.stringify({ kind: 'auth_app', resource_id: app.id })),
    });
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(res.status).toBe(201);
  });

  it('a form-encoded body is a 400 naming the body, and nothing is connected', async () => {
    const site = await createSite(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    const res = await s.as.post<{ error: { code: string } }>(conns(site.id), undefined, {
      rawBody: `kind=auth_app&resource_id=${app.id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect((await s.as.get<{ connections: unknown[] }>(conns(site.id))).body.connections).toEqual([]);
  });

  it('on an auth route: a text/plain exchange is 415, the auth service takes JSON declared as JSON (contract §9)', async () => {
    const app = await createAuthApp(s.as, s.project.id);
    const res = await s.as.post(`/v1/${app.name}/oauth/exchange`, undefined, {
      rawBody: JSON.stringify({ code: 'no-such-code', code_verifier: 'v'.repeat(43) }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });
});

describe('sending back what a GET returned', () => {
  it("PUT of the site's connections exactly as GET gave them changes nothing and delivers nothing", async () => {
    const site = await createSite(s.as, s.project.id);
    const bucket = await createBucket(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    await s.as.post(conns(site.id), { kind: 'bucket', resource_id: bucket.id, level: 'read' });
    await s.as.post(conns(site.id), { kind: 'auth_app', resource_id: app.id, level: 'admin' });
    const before = await s.as.get<{ connections: unknown[] }>(conns(site.id));
    const delivered = (await deliveriesOf(site.id)).length;

    const put = await s.as.put<{ connections: unknown[] }>(conns(site.id), {
      connections: before.body.connections,
    });
    expect(put.status).toBe(200);
    expect(put.body.connections).toEqual(before.body.connections);
    expect(await deliveriesOf(site.id)).toHaveLength(delivered);
  });

  it("PUT of a bucket's sites exactly as GET gave them changes nothing", async () => {
    const site = await createSite(s.as, s.project.id);
    const bucket = await createBucket(s.as, s.project.id);
    await s.as.post(conns(site.id), { kind: 'bucket', resource_id: bucket.id });
    const path = `/api/v1/storage/${bucket.id}/sites`;
    const before = await s.as.get<{ sites: unknown[] }>(path);
    const put = await s.as.put<{ sites: unknown[] }>(path, { sites: before.body.sites });
    expect(put.status).toBe(200);
    expect(put.body.sites).toEqual(before.body.sites);
  });

  it('a field no GET returns is still refused (a typo is a 400, not a silent default)', async () => {
    const site = await createSite(s.as, s.project.id);
    const app = await createAuthApp(s.as, s.project.id);
    const res = await s.as.post<{ error: { code: string; message: string } }>(conns(site.id), {
      kind: 'auth_app',
      resource_id: app.id,
      levle: 'admin',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/levle/);
  });

  it('a deploy body carrying fields a platform adds (a ref) deploys', async () => {
    const site = await createSite(s.as, s.project.id);
    const res = await s.as.post(`/api/v1/projects/${s.project.id}/sites/${site.id}/deploys`, {
      ref: 'main',
    });
    expect(res.status).toBe(201);
  });

  it('a variable named __proto__ is refused with 400, not dropped, and the stored variables stay', async () => {
    const site = await createSite(s.as, s.project.id);
    const env = `/api/v1/projects/${s.project.id}/sites/${site.id}/env`;
    expect((await s.as.put(env, { vars: { KEEP: '1' } })).status).toBe(200);
    const res = await s.as.put<{ error: { code: string; message: string } }>(env, undefined, {
      rawBody: '{"vars":{"__proto__":"x","OTHER":"2"}}',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/__proto__/);
    expect((await s.as.get(env)).body).toEqual({ vars: { KEEP: '1' } });
  });
});
