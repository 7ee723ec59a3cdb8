/**
 * The one error handler (functions/on-error.ts): each route family gets its own shape, a 4xx
 * Hono raises itself keeps its status, and an unreachable metadata database is 503.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env';
import { ApiError } from './lib/errors';
import { OAuthError } from './lib/oauth-error';
import { asError, onError } from './on-error';

/** An app whose routes throw `thrown`, under the management and the OAuth prefixes. */
function throwing(thrown: () => unknown) {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', 'req-1');
    try {
      await next();
    } catch (err) {
      throw asError(err);
    }
  });
  app.all('*', () => {
    throw thrown();
  });
  app.onError(onError);
  return {
    management: (method = 'GET') => app.request('/api/v1/thing', { method }),
    oauth: () => app.request('/v1/app/oauth/exchange', { method: 'POST' }),
  };
}

describe('the error handler', () => {
  it('keeps the status of a 4xx Hono raises itself (405, 413, 415), in the management shape', async () => {
    for (const status of [405, 413, 415] as const) {
      const res = await throwing(() => new HTTPException(status, { message: 'nope' })).management();
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message).toBe('nope');
      expect(body.error.code).not.toBe('BAD_REQUEST');
    }
  });

  it('answers a malformed body Hono found as 400 VALIDATION_FAILED naming the body, the code of every body failing validation', async () => {
    const res = await throwing(() => new HTTPException(400, { message: 'Malformed JSON' })).management();
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'Malformed JSON', field: 'body' },
    });
  });

  it('keeps a Hono 4xx on the OAuth routes in their shape', async () => {
    const res = await throwing(() => new HTTPException(405, { message: 'nope' })).oauth();
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: 'nope' });
  });

  it('writes ApiError and OAuthError with their own status and shape', async () => {
    const api = await throwing(() => new ApiError('NAME_CONFLICT', 'taken', 'name')).management();
    expect(api.status).toBe(409);
    expect(await api.json()).toEqual({ error: { code: 'NAME_CONFLICT', message: 'taken', field: 'name' } });
    const oauth = await throwing(() => new OAuthError(429, 'too many requests', undefined, 7)).oauth();
    expect(oauth.status).toBe(429);
    expect(oauth.headers.get('retry-after')).toBe('7');
    expect(await oauth.json()).toEqual({ error: 'too many requests' });
  });

  it('answers 503 in each shape when the metadata database cannot be reached (a socket ErrorEvent)', async () => {
    const lost = () => ({ type: 'error', message: 'Network connection lost.' });
    const management = await throwing(lost).management();
    expect(management.status).toBe(503);
    expect(((await management.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    const oauth = await throwing(lost).oauth();
    expect(oauth.status).toBe(503);
    expect(((await oauth.json()) as { code: string }).code).toBe('temporarily_unavailable');
  });

  it('answers anything else 500 INTERNAL with the request id', async () => {
    const res = await throwing(() => new Error('boom')).management();
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { code: 'INTERNAL', message: 'internal error', request_id: 'req-1' },
    });
  });
});
