/**
 * The console's session cookie off a loopback http origin (contract §8: `tether_session` is
 * HttpOnly, SameSite=Lax, and Secure except on a loopback http origin). The e2e sign-in test
 * sees the loopback half in Chromium; here the Worker is asked under a public host name.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';

/** POSTs the login form to the shared Worker with `host` as the Host header. */
function signInAs(host: string, token: string): Promise<{ status: number; cookies: string[] }> {
  const url = new URL(api().baseUrl);
  const body = `token=${encodeURIComponent(token)}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/console/login',
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [] });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the console session cookie', () => {
  it('is Secure, HttpOnly and SameSite=Lax under a host that is not loopback, and only HttpOnly and SameSite=Lax on loopback http', async () => {
    const account = await createAccount();
    const session = (cookies: string[]) => cookies.find((c) => c.startsWith('tether_session=')) ?? '';
    const publicHost = await signInAs('console.example.com', account.token);
    expect(publicHost.status).toBe(303);
    const attributes = (cookie: string) =>
      cookie
        .split(';')
        .slice(1)
        .map((a) => a.trim().split('=')[0]?.toLowerCase());
    expect(attributes(session(publicHost.cookies))).toEqual(
      expect.arrayContaining(['httponly', 'secure', 'samesite']),
    );
    expect(session(publicHost.cookies)).toMatch(/SameSite=Lax/);
    const loopback = await signInAs(new URL(api().baseUrl).host, account.token);
    expect(loopback.status).toBe(303);
    expect(attributes(session(loopback.cookies))).toEqual(expect.arrayContaining(['httponly', 'samesite']));
    expect(attributes(session(loopback.cookies))).not.toContain('secure');
    expect(session(loopback.cookies)).toMatch(/SameSite=Lax/);
  });

  it("a session made through the API and set as the cookie by a script shows its person's e-mail in the header, read once", async () => {
    const account = await createAccount();
    const made = await api(undefined, account.token).post<{ token: string }>('/api/v1/account/sessions');
    expect(made.status, made.text).toBe(201);
    const page = (cookie: string) =>
      fetch(`${api().baseUrl}/console`, { headers: { cookie }, redirect: 'manual' });
    const first = await page(`tether_session=${made.body.token}`);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain(account.email);
    const kept = first.headers.get('set-cookie') ?? '';
    expect(kept).toMatch(/^tether_account=/);
    expect(kept).toMatch(/HttpOnly/);
    // The next page names the person from the cookie it was given, without setting it again.
    const next = await page(`tether_session=${made.body.token}; ${kept.split(';')[0]}`);
    expect(await next.text()).toContain(account.email);
    expect(next.headers.get('set-cookie') ?? '').not.toContain('tether_account=');
  });
});
