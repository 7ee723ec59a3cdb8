/**
 * The code exchange's fast path (the exchange close to its one Durable Object call).
 * A plain JSON exchange (routes/oauth/exchange.ts isPlainExchange: what the mobile SDKs send)
 * of an app this isolate knows is answered here without the HTTP framework, as the route behind
 * its middleware answers it: CORS headers, the body read and validated, counted and redeemed in
 * one object call, the session signed; errors through the Worker's one error handler. Anything
 * else goes, with nothing read or counted, to the route behind its middleware (`routed`); a
 * body the route's validation would refuse goes there too, rebuilt, still with nothing counted,
 * so every refusal is the route's own answer.
 */
import type { Bindings } from './config';
import { buildServices, openRequest, type Services, type WorkerOptions } from './container';
import { clientKey } from './domain/client-key';
import { SERVICE_NAME_RE } from './domain/names';
import { newId } from './lib/ids';
import { withRequestId } from './lib/logger';
import { asError, errorAnswer } from './on-error';
import { exchangeInput } from './routes/oauth/exchange';
import { SCRIPT_CORS } from './routes/oauth/shared';
import { activitySourceOf } from './services/activity/source';
import { isKnownApp } from './services/sign-in/apps';
import { countExchange, type ExchangeInput, exchangeCode } from './services/sign-in/exchange';

/** The Worker's fetch of anything this path does not serve itself. */
type Fetch = (request: Request, env: Bindings, ctx: ExecutionContext) => Response | Promise<Response>;

/** The app of POST /v1/{appSlug}/oauth/exchange (with or without a query), told from the raw URL. */
const EXCHANGE_URL = /^[a-z]+:\/\/[^/]+\/v1\/([^/?%]+)\/oauth\/exchange(?:\?|$)/;

/** The app an exchange request's URL names, or null when the URL is not the exchange's. */
export const exchangeSlugOf = (url: string): string | null => EXCHANGE_URL.exec(url)?.[1] ?? null;

const CORS_HEADERS = {
  'access-control-allow-origin': SCRIPT_CORS.origin,
  'access-control-expose-headers': SCRIPT_CORS.exposeHeaders.join(','),
};
const utf8 = new TextDecoder();

/** The body as the exchange's input, or null when it is not JSON the route's validation accepts. */
function inputOf(bytes: ArrayBuffer): ExchangeInput | null {
  try {
    return exchangeInput(JSON.parse(utf8.decode(bytes)));
  } catch {
    return null;
  }
}

/** JSON `body` with the exchange's own headers and the route's CORS headers. */
function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...CORS_HEADERS, ...headers },
  });
}

/**
 * Serves a plain JSON exchange of app `slug` ({@link exchangeSlugOf}), or hands it to `routed`
 * when the app is not known to this isolate, the environment is incomplete or the body would be
 * refused by the route's validation.
 */
export async function serveExchange(
  request: Request,
  env: Bindings,
  ctx: ExecutionContext,
  slug: string,
  routed: Fetch,
  options: WorkerOptions = {},
): Promise<Response> {
  let services: Services;
  try {
    services = buildServices(env, options);
  } catch {
    return routed(request, env, ctx);
  }
  if (!SERVICE_NAME_RE.test(slug) || !isKnownApp(slug)) return routed(request, env, ctx);
  const requestId = request.headers.get('cf-ray') ?? newId();
  return withRequestId(requestId, async () => {
    try {
      const bytes = await request.arrayBuffer();
      const input = inputOf(bytes);
      if (input === null) {
        const { url, method, headers } = request;
        return routed(new Request(url, { method, headers, body: bytes }), env, ctx);
      }
      // The exchange records no change and reads no metadata: its context opens nothing.
      const scope = openRequest(services, () =>
        activitySourceOf({ type: 'anonymous' }, undefined, undefined),
      );
      const client = clientKey(request.headers.get(scope.ctx.config.CLIENT_IP_HEADER) ?? '');
      const { taken } = await countExchange(scope.ctx, { slug, client, code: input.code });
      const session = await exchangeCode(scope.ctx, { slug, input, taken });
      return json(session, 200, { 'cache-control': 'no-store' });
    } catch (err) {
      const { status, body, headers } = errorAnswer(asError(err), new URL(request.url).pathname, requestId);
      return json(body, status, headers);
    }
  });
}
