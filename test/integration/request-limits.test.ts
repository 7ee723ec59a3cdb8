/**
 * Limits a body meets before anything reads it (contract §9 Request size, Auth bodies): every
 * body, API, auth and console alike, is refused with 413 past its limit, whether it declares its
 * length or streams without one; the auth service's POST routes take only JSON declared as
 * JSON (415 otherwise), so a page of another site cannot send them without a preflight.
 * Pins the bug of POST /console/login parsing a body of any size before any check.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { createAuthApp, type Seeded, seed } from '../helpers/connections';

let s: Seeded;
let appSlug: string;
beforeAll(async () => {
  s = await seed(inject('baseUrl'));
  appSlug = (await createAuthApp(s.as, s.project.id)).name;
});

// Just over the 256 KiB limits in whole 64 KiB chunks: the chunk that crosses the limit is the
// last one sent, so the client has finished writing when the 413 comes back.
const OVER = 320 * 1024;

/** A body of `bytes` sent as a stream, with no Content-Length (chunked). */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

async function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.as.baseUrl}${path}`, {
    method: 'POST',
    headers,
    body,
    // @ts-expect-error Node's fetch needs `duplex` to send a stream; the DOM types do not know it
    duplex: 'half',
  });
  return { status: res.status, text: await res.text() };
}

describe('an oversized body is 413 before it is parsed', () => {
  it('POST /console/login with a form body past 256 KiB, declared and streamed', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const declared = await post('/console/login', `token=${'a'.repeat(300 * 1024)}`, form);
    expect(declared.status).toBe(413);
    const chunked = await post('/console/login', streamed(OVER), form);
    expect(chunked.status).toBe(413);
  });

  it('a console form post past the limit is 413 too', async () => {
    const res = await post('/console/projects', streamed(OVER), {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: 'tether_session=whatever',
    });
    expect(res.status).toBe(413);
  });

  it('the management API past 256 KiB: 413 PAYLOAD_TOO_LARGE, streamed or declared', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(300 * 1024) });
    const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
    for (const body of [big, streamed(OVER)]) {
      const res = await post('/api/v1/projects', body, headers);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).error.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('the auth service past 64 KiB: 413 in its own error shape', async () => {
    const big = JSON.stringify({ provider: 'google', id_token: 'x'.repeat(100 * 1024) });
    const res = await post(`/v1/${appSlug}/oauth/id-token`, big, { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: expect.stringContaining('larger than') });
  });
});

describe('the auth service POST routes take only JSON declared as JSON', () => {
  const routes = ['oauth/exchange', 'oauth/id-token', 'oauth/refresh', 'logout'];

  it('text/plain, a form and an undeclared body are 415 on every route that reads a body', async () => {
    for (const route of routes) {
      for (const headers of [
        { 'content-type': 'text/plain' },
        { 'content-type': 'application/x-www-form-urlencoded' },
        { 'content-type': 'multipart/form-data; boundary=x' },
      ]) {
        const res = await post(`/v1/${appSlug}/${route}`, '{"refresh_token":"r"}', headers);
        expect([route, headers, res.status]).toEqual([route, headers, 415]);
      }
      const undeclared = await post(`/v1/${appSlug}/${route}`, new Blob(['{"refresh_token":"r"}']));
      expect([route, undeclared.status]).toEqual([route, 415]);
    }
  });

  it('the same bodies sent as application/json are judged on what they say', async () => {
    const res = await api(s.as.baseUrl).post(`/v1/${appSlug}/oauth/refresh`, { refresh_token: 'r' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_grant' });
  });

  it('the nonce, which reads no body, is issued to a POST without one', async () => {
    const res = await fetch(`${s.as.baseUrl}/v1/${appSlug}/oauth/nonce`, { method: 'POST' });
    expect(res.status).toBe(201);
  });
});
