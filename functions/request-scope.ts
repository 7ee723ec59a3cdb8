/**
 * What every request goes through first, on the auth edge and the management app alike: its id,
 * its log context and its context (built once, container.ts openRequest); afterwards an unread
 * body is drained and the request's database closed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import { buildDependencies, openRequest, type RequestScope, type WorkerOptions } from './container';
import { newId } from './lib/ids';
import { withRequestId } from './lib/logger';
import { asError } from './on-error';
import { type ActivitySource, activitySourceOf, CLIENT_HEADER } from './use-cases/activity';

/** How much of a body nobody read is drained before answering; larger ones are abandoned. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads what is left of a request body no handler read (a 401, a 404 or a refusal answered
 * before the body). workerd resets a connection whose request body was left unread, so a
 * client still sending it would see a reset instead of the answer.
 */
async function drainUnreadBody(req: Request): Promise<void> {
  if (!req.body || req.bodyUsed || req.body.locked) return;
  const reader = req.body.getReader();
  try {
    for (let seen = 0; seen <= DRAIN_LIMIT_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away; there is nobody left to answer.
  }
}

/** Who a request's changes are recorded as: its caller (once admitted), its client and address. */
function activityBy(c: Context<AppEnv>): ActivitySource {
  return activitySourceOf(
    c.get('principal'),
    c.req.header(CLIENT_HEADER),
    c.req.header(c.get('config').CLIENT_IP_HEADER),
  );
}

/** The request scope middleware, with `options` (a test's clock) in every context it builds. */
export function requestScope(options: WorkerOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = c.req.header('cf-ray') ?? newId();
    c.set('requestId', requestId);
    await withRequestId(requestId, async () => {
      let scope: RequestScope | undefined;
      try {
        // The composition root: a missing variable, secret or binding is answered 500 BAD_ENVIRONMENT here.
        const deps = buildDependencies(c.env, options);
        scope = openRequest(deps, () => activityBy(c));
        c.set('ctx', scope.ctx);
        c.set('config', deps.config);
        await next();
      } catch (err) {
        // Hono hands only Errors to the error handler; anything else thrown reaches it wrapped.
        throw asError(err);
      } finally {
        await drainUnreadBody(c.req.raw);
        if (scope?.opened()) {
          const done = scope.close();
          try {
            c.executionCtx.waitUntil(done);
          } catch {
            await done;
          }
        }
      }
    });
  };
}
