/**
 * Cross-site request forgery guard for the console's session cookie. A browser attaches the
 * cookie to requests other sites make it send, so a request that changes something and
 * authenticates only by the cookie must come from Tether's own origin. Browsers say where a
 * request comes from in `Origin` (and `Sec-Fetch-Site`); a client that is no browser sends
 * neither and is not at risk. A Bearer header is never attached by a browser on its own.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether `req`, authenticated by the cookie alone, comes from another site and changes
 * something. A WebSocket upgrade is a GET that opens a two-way channel (the tunnel writes to a
 * database), and browsers let any page open one with the cookie: it counts as a change.
 */
export function isCrossSiteWrite(req: Request, publicBaseUrl: string): boolean {
  const upgrade = req.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (SAFE_METHODS.has(req.method) && !upgrade) return false;
  const origin = req.headers.get('origin');
  if (origin !== null) {
    return origin !== new URL(req.url).origin && origin !== new URL(publicBaseUrl).origin;
  }
  const site = req.headers.get('sec-fetch-site');
  return site !== null && site !== 'same-origin' && site !== 'none';
}
