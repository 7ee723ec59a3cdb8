/**
 * The receiver package on its own: a delivery signed as Tether signs it is applied once; a forged,
 * stale or replayed one is not; an older `seq` is dropped; a failed apply answers 500 and the
 * patch can come again. Through a Fetch handler (as a Worker or Hono serves it).
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type Applied, createReceiver, sign } from '../index.js';

const SECRET = 'a-webhook-secret-of-some-length';
const SITE = '6f9f4c4e-2b9d-4d7e-9a51-0c7f1b3f4a10';

async function delivery(
  seq: number,
  opts: { t?: number; secret?: string; set?: Record<string, string> } = {},
) {
  const body = JSON.stringify({
    site_id: SITE,
    project_id: 'p',
    set: opts.set ?? { DATABASE_URL: `postgres://db/${seq}` },
    unset: [],
    reason: 'connect',
    seq,
  });
  const t = String(opts.t ?? Math.floor(Date.now() / 1000));
  const signature = `t=${t},sha256=${await sign(opts.secret ?? SECRET, t, new TextEncoder().encode(body))}`;
  return { body, signature };
}

function served(apply: (p: Applied) => unknown = () => undefined) {
  const applied: Applied[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    apply: async (p) => {
      await apply(p);
      applied.push(p);
    },
  });
  const app = new Hono();
  app.post('/tether', (c) => receiver.handle(c.req.raw));
  const post = async (d: { body: string; signature: string }) =>
    app.request('/tether', { method: 'POST', body: d.body, headers: { 'x-signature': d.signature } });
  return { applied, post };
}

describe('the receiver package', () => {
  it('applies a signed patch once, and answers 2xx only after apply', async () => {
    const { applied, post } = served();
    const res = await post(await delivery(1));
    expect(res.status).toBe(200);
    expect(applied).toEqual([
      { set: { DATABASE_URL: 'postgres://db/1' }, unset: [], reason: 'connect', seq: 1, siteId: SITE },
    ]);
  });

  it('refuses a forged body, a wrong secret and a stale or future t', async () => {
    const { applied, post } = served();
    const real = await delivery(1);
    expect((await post({ ...real, body: real.body.replace('db/1', 'db/X') })).status).toBe(401);
    expect((await post(await delivery(2, { secret: 'another-secret-entirely' }))).status).toBe(401);
    const now = Math.floor(Date.now() / 1000);
    expect((await post(await delivery(3, { t: now - 301 }))).status).toBe(401);
    expect((await post(await delivery(4, { t: now + 301 }))).status).toBe(401);
    expect((await post({ ...real, signature: 'sha256=abc' })).status).toBe(401);
    expect(applied).toEqual([]);
  });

  it('never applies a replay or an older seq', async () => {
    const { applied, post } = served();
    const five = await delivery(5);
    expect((await post(five)).status).toBe(200);
    expect((await post(five)).status).toBe(200);
    expect((await post(await delivery(3))).status).toBe(200);
    expect((await post(await delivery(6))).status).toBe(200);
    expect(applied.map((a) => a.seq)).toEqual([5, 6]);
  });

  it('answers 500 when apply fails, and applies the patch when it comes again', async () => {
    let fail = true;
    const { applied, post } = served(() => {
      if (fail) throw new Error('disk full');
    });
    const d = await delivery(1);
    expect((await post(d)).status).toBe(500);
    fail = false;
    expect((await post(d)).status).toBe(200);
    expect(applied.map((a) => a.seq)).toEqual([1]);
  });

  it('applies patches of one site one at a time, in the order they arrive', async () => {
    let inside = 0;
    let most = 0;
    const { applied, post } = served(async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
    });
    const all = await Promise.all([1, 2, 3, 4].map((seq) => delivery(seq)));
    await Promise.all(all.map(post));
    expect(most).toBe(1);
    expect(applied.map((a) => a.seq)).toEqual([1, 2, 3, 4]);
  });

  it('keeps arrival order when an earlier patch takes longer to read and check than later ones', async () => {
    const large = await delivery(1, { set: { CERTIFICATE: 'x'.repeat(2 << 20) } });
    const small = await Promise.all([2, 3].map((seq) => delivery(seq)));
    for (let round = 0; round < 8; round++) {
      const { applied, post } = served();
      const answers = await Promise.all([large, ...small].map(post));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(applied.map((a) => a.seq)).toEqual([1, 2, 3]);
    }
  });
});
