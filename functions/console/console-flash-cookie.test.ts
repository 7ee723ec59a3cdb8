/**
 * The console's flash cookie (a form's outcome carried to the next page) is Secure wherever the
 * console is served over https; only a local run on plain http to a loopback host leaves it off.
 * Pins that the flash cookie lacked `Secure` while the session cookie had it.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { redirectWith } from './flash';

const app = new Hono().post('/console/form', (c) =>
  redirectWith(c, '/console', { kind: 'notice', text: 'Saved' }),
);

async function flashCookie(base: string): Promise<string> {
  const res = await app.request(`${base}/console/form`, { method: 'POST' });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie') ?? '';
}

describe('the console flash cookie', () => {
  it('is Secure, HttpOnly and SameSite=Lax over https', async () => {
    const cookie = await flashCookie('https://tether.example.com');
    expect(cookie).toMatch(/^tether_flash=/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });

  it('leaves Secure off only on plain http to a loopback host (a local run)', async () => {
    expect(await flashCookie('http://127.0.0.1:8787')).not.toMatch(/; Secure/);
    expect(await flashCookie('http://tether.example.com')).toMatch(/; Secure/);
  });
});
