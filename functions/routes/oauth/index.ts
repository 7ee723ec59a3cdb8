/**
 * The auth service, mounted under /v1: /{appSlug}/auth/..., /oauth/..., /logout and the JWKS.
 * Rate-limited routes are counted here, before validation or any other work.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../../context';
import { SERVICE_NAME_RE } from '../../domain/names';
import { OAuthError } from '../../lib/oauth-error';
import { countRequest, type LimitedRoute } from '../../services/auth/rate-limit';
import { browserRoutes } from './browser';
import { jwksRoutes } from './jwks';
import { clientOf, oauthGroup } from './shared';
import { tokenRoutes } from './tokens';

const MAX_BODY_BYTES = 64 * 1024;

function limited(route: LimitedRoute): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const slug = c.req.param('appSlug') ?? '';
    // A path that cannot name an app gets no counter of its own.
    if (!SERVICE_NAME_RE.test(slug)) throw new OAuthError(404, 'unknown app');
    await countRequest(c.env, route, slug, clientOf(c));
    return next();
  };
}

export const oauthRoutes = oauthGroup();
oauthRoutes.use('/:appSlug/oauth/exchange', limited('exchange'));
oauthRoutes.use('/:appSlug/oauth/id-token', limited('id-token'));
oauthRoutes.use(
  '*',
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new OAuthError(400, `body larger than ${MAX_BODY_BYTES} bytes`, 'invalid_request');
    },
  }),
);
for (const group of [tokenRoutes, browserRoutes, jwksRoutes]) oauthRoutes.route('/', group);
