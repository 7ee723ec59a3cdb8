/** GET /healthz: `{"ok":true}`, and with `?detail` and the operator token what the reconciler is doing. */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { timingSafeEqual } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { reconcilerHealth } from '../use-cases/reconciler/state';
import { bearerOf } from './declared-reads';
import { requestContext } from './shared';

export const healthRoutes = new Hono<AppEnv>();

healthRoutes.get('/healthz', async (c) => {
  if (c.req.query('detail') === undefined) return c.json({ ok: true });
  // The detail is the operator's: what the reconciler is doing, failing items included.
  const token = bearerOf(c);
  if (!token || !timingSafeEqual(token, c.get('config').OPERATOR_TOKEN))
    throw new ApiError('UNAUTHORIZED', 'the detail needs the operator token');
  c.header('Cache-Control', 'no-store');
  return c.json({ ok: true, reconciler: await reconcilerHealth(requestContext(c)) });
});
