/** The console's two static files, served by the Worker itself (no build step). */
import { Hono } from 'hono';
import { CLIENT_SCRIPT } from './client-script';
import { STYLES } from './styles';

/** Where pages load them from; bump the version when either changes. */
export const ASSET_PATHS = { js: '/console/assets/console.v2.js', css: '/console/assets/console.v2.css' };

/** A path of ASSET_PATHS relative to the console's mount. */
const under = (full: string) => full.slice('/console'.length);

export const assetRoutes = new Hono();

const CACHED = 'public, max-age=86400, immutable';

assetRoutes.get(under(ASSET_PATHS.js), (c) =>
  c.body(CLIENT_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': CACHED }),
);
assetRoutes.get(under(ASSET_PATHS.css), (c) =>
  c.body(STYLES, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': CACHED }),
);
