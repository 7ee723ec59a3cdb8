/**
 * The exchange's two ways through the Worker (functions/auth-edge.ts): a plain JSON
 * exchange of a known app is answered without the framework, any other goes to the route behind
 * its middleware. A client must not be able to tell them apart: the same statuses, bodies and
 * headers, and a body the route's validation refuses is counted once, not once per way.
 */
import { describe, expect } from 'vitest';
import {
  asClient,
  INVALID_GRANT,
  newClient,
  oneTimeCode,
  type Session,
  type TestAuthApp,
} from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import type { ExtraWorker } from '../helpers/worker';

/** The fast path takes plain application/json; JSON with another parameter takes the route. */
const WAYS = { fast: 'application/json', routed: 'application/json; profile=routed' } as const;
const HEADERS = [
  'content-type',
  'cache-control',
  'retry-after',
  'access-control-allow-origin',
  'access-control-expose-headers',
];

async function post(
  { worker, app }: { worker: ExtraWorker; app: TestAuthApp },
  contentType: string,
  body: string,
  client: string,
) {
  const res = await fetch(`${worker.baseUrl}/v1/${app.slug}/oauth/exchange`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...asClient(client) },
    body,
  });
  const headers = Object.fromEntries(HEADERS.map((name) => [name, res.headers.get(name)]));
  return { status: res.status, headers, body: (await res.json()) as Record<string, unknown> };
}

describe('the exchange on the fast path and through the route', () => {
  it('a session comes back with the same status, body shape and headers either way', async ({
    standIn,
    worker,
    app,
  }) => {
    const answers = [];
    // The route's exchange makes the app known to the isolate, so the next takes the fast path.
    for (const contentType of [WAYS.routed, WAYS.fast]) {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
      answers.push(
        await post(
          { worker, app },
          contentType,
          JSON.stringify({ code, code_verifier: verifier }),
          newClient(),
        ),
      );
    }
    const [routed, fast] = answers as [Awaited<ReturnType<typeof post>>, Awaited<ReturnType<typeof post>>];
    expect(fast.status).toBe(200);
    expect(routed.status).toBe(200);
    expect(fast.headers).toEqual(routed.headers);
    expect(fast.headers['cache-control']).toBe('no-store');
    expect(fast.headers['access-control-allow-origin']).toBe('*');
    expect(Object.keys(fast.body).sort()).toEqual(Object.keys(routed.body).sort());
    expect((fast.body as unknown as Session).user.providers).toEqual(['github']);
  });

  it('a wrong verifier is the same invalid_grant either way, and burns the code either way', async ({
    standIn,
    worker,
    app,
  }) => {
    for (const contentType of [WAYS.routed, WAYS.fast]) {
      const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug);
      const wrong = await post(
        { worker, app },
        contentType,
        JSON.stringify({ code, code_verifier: 'x'.repeat(43) }),
        newClient(),
      );
      expect([wrong.status, wrong.body], contentType).toEqual([400, INVALID_GRANT]);
      expect(wrong.headers['access-control-allow-origin'], contentType).toBe('*');
      const late = await post(
        { worker, app },
        contentType,
        JSON.stringify({ code, code_verifier: verifier }),
        newClient(),
      );
      expect([late.status, late.body], contentType).toEqual([400, INVALID_GRANT]);
    }
  });

  it('a body the validation refuses gets the route answer and counts once: a client is limited after 20, not 10', async ({
    worker,
    app,
  }) => {
    const client = newClient();
    const refusals = [];
    for (let i = 0; i < 20; i++)
      refusals.push(await post({ worker, app }, WAYS.fast, JSON.stringify({ code: 5 }), client));
    const viaRoute = await post({ worker, app }, WAYS.routed, JSON.stringify({ code: 5 }), newClient());
    for (const refused of refusals) expect(refused).toEqual(viaRoute);
    expect(viaRoute.status).toBe(400);
    const limited = await post({ worker, app }, WAYS.fast, JSON.stringify({ code: 5 }), client);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.headers['access-control-expose-headers']).toContain('Retry-After');
  });
});
