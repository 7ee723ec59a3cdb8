/**
 * The binding cookie's attributes (functions/routes/oauth/browser-binding.ts) over https, which
 * the local stack (plain http on loopback) cannot show: Secure, the callback's path, and
 * SameSite=None only for a provider that returns by a cross-site form POST (Apple), Lax else;
 * and a callback is bound only with the cookie of its own state.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../functions/app-env';
import { bindToBrowser, startedInThisBrowser } from '../../functions/routes/oauth/browser-binding';

const CALLBACK = 'https://auth.example.com/v1/shop/auth/apple/callback';

function app(returnsByPost: boolean) {
  const routes = new Hono<AppEnv>();
  routes.get('/start', async (c) => {
    await bindToBrowser(c, { state: 'state-1', callbackUri: CALLBACK, returnsByPost });
    return c.body(null, 204);
  });
  routes.get('/callback', async (c) =>
    c.json({
      bound: await startedInThisBrowser(c, {
        state: c.req.query('state') ?? '',
        callbackUri: CALLBACK,
        returnsByPost,
      }),
    }),
  );
  return routes;
}

const setCookie = async (returnsByPost: boolean) =>
  (await app(returnsByPost).request('https://auth.example.com/start')).headers.get('set-cookie') ?? '';

describe('the binding cookie over https', () => {
  it('a provider returning by form POST gets SameSite=None with Secure; one returning by redirect gets Lax', async () => {
    const post = await setCookie(true);
    expect(post).toMatch(/^tether_auth_state_[A-Za-z0-9_-]{12}=[A-Za-z0-9_-]{43}; /);
    expect(post).toContain('Path=/v1/shop/auth/apple/callback');
    expect(post).toContain('HttpOnly');
    expect(post).toContain('Secure');
    expect(post).toContain('SameSite=None');
    const get = await setCookie(false);
    expect(get).toContain('Secure');
    expect(get).toContain('SameSite=Lax');
  });

  it('binds only the state whose cookie is sent, and clears it then', async () => {
    const cookie = (await setCookie(true)).split(';')[0] ?? '';
    const ask = (state: string, header?: string) =>
      app(true).request(`https://auth.example.com/callback?state=${state}`, {
        headers: header ? { cookie: header } : {},
      });
    expect(await (await ask('state-1')).json()).toEqual({ bound: false });
    expect(await (await ask('state-2', cookie)).json()).toEqual({ bound: false });
    const own = await ask('state-1', cookie);
    expect(await own.json()).toEqual({ bound: true });
    expect(own.headers.get('set-cookie')).toMatch(
      /^tether_auth_state_[A-Za-z0-9_-]{12}=; Max-Age=0; .*SameSite=None/,
    );
  });
});
