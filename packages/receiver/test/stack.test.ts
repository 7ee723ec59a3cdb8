/**
 * The receiver package fed by the real stack: a site whose target is a webhook served by the
 * package under Node's http module gets its sync, connect, rotate and disconnect applied in seq
 * order with the values of the site's effective set; a delivery replayed, forged or signed
 * more than 300 s ago is refused without apply.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, seed } from '../../../test/helpers/connections';
import { eventually } from '../../../test/helpers/eventually';
import { type Applied, createReceiver, sign } from '../index.js';

const SECRET = 'receiver-package-secret-0123456789';
const applied: Applied[] = [];
const captured: Array<{ body: Buffer; signature: string; status: number }> = [];
let url: string;
let server: ReturnType<typeof createServer>;

beforeAll(async () => {
  const receiver = createReceiver({ secret: SECRET, apply: (p) => void applied.push(p) });
  server = createServer(async (req: IncomingMessage, res) => {
    // Keeps each delivery's raw bytes to replay them below.
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const answer = await receiver.receive(new Uint8Array(body), String(req.headers['x-signature'] ?? ''));
    captured.push({ body, signature: String(req.headers['x-signature']), status: answer.status });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tether`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const post = (body: Buffer | string, signature: string) =>
  fetch(url, { method: 'POST', body, headers: { 'x-signature': signature } });

describe('the receiver package against the stack', () => {
  it('applies the real deliveries in seq order and refuses replays, forgeries and stale ones', async () => {
    const s = await seed(inject('baseUrl'), 1);
    const site = `/api/v1/projects/${s.project.id}/sites/${s.sites[0]?.id}`;
    const set = await s.as.put(`${site}/target`, { type: 'webhook', url, secret: SECRET });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ type: 'webhook', url, secret_set: true });
    const db = await createDatabase(s.as, s.project.id);
    await eventually(
      async () => applied.map((a) => a.reason),
      (r) => r.includes('connect'),
      20_000,
      'connect',
    );
    expect((await s.as.post(`${site}/connections/database/${db.id}/rotate`)).status).toBe(204);
    await eventually(
      async () => applied.map((a) => a.reason),
      (r) => r.includes('rotate'),
      20_000,
      'rotate',
    );
    const rotated = (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
    expect(applied.at(-1)?.set.DATABASE_URL).toBe(rotated.DATABASE_URL);
    expect((await s.as.delete(`${site}/connections/database/${db.id}`)).status).toBe(200);
    await eventually(
      async () => applied.map((a) => a.reason),
      (r) => r.includes('disconnect'),
      20_000,
      'disconnect',
    );

    expect(applied.map((a) => a.reason)).toEqual(['sync', 'connect', 'rotate', 'disconnect']);
    const seqs = applied.map((a) => a.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(applied.at(-1)?.unset).toContain('DATABASE_URL');

    // A replay of the rotate's delivery (its signature still fresh) is not applied again.
    const rotate = captured.find((c) => JSON.parse(c.body.toString()).reason === 'rotate');
    if (!rotate) throw new Error('no rotate delivery captured');
    const count = applied.length;
    expect((await post(rotate.body, rotate.signature)).status).toBe(200);
    // A forgery: the same signature over a changed body.
    const forged = Buffer.from(rotate.body.toString().replace(/"seq":\d+/, '"seq":999999'));
    expect((await post(forged, rotate.signature)).status).toBe(401);
    // A stale one: signed correctly, but 301 s ago.
    const t = String(Math.floor(Date.now() / 1000) - 301);
    const stale = `t=${t},sha256=${await sign(SECRET, t, new Uint8Array(forged))}`;
    expect((await post(forged, stale)).status).toBe(401);
    expect(applied.length).toBe(count);
  }, 90_000);
});
