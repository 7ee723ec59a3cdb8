/**
 * Where the console's two static files are served: by Workers static assets (wrangler.toml
 * `[assets]`), written from client-script.ts and styles/console.css by scripts/local/build-assets.ts, not by
 * the Worker's script.
 */

/** Where pages load them from; bump the version when either changes. */
export const ASSET_PATHS = { js: '/console/assets/console.v3.js', css: '/console/assets/console.v3.css' };
