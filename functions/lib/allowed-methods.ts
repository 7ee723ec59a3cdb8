/**
 * The methods a Hono app's routes take at a path, for a 405's `Allow` (contract §2): read from
 * the app's own route table, so the answer is what the router would route, middleware
 * (method ALL) left out.
 */

/** A route as Hono lists it (`app.routes`). */
interface RouteEntry {
  method: string;
  path: string;
}

const ORDER = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'];

/** A Hono path pattern (`/v1/:slug/x`, `:id{[0-9]+}`, `*`) as an anchored regular expression. */
export function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => {
      if (part === '*') return '.*';
      const param = /^:[^{?]+(\{(.+)\})?(\?)?$/.exec(part);
      if (param) return `(?:${param[2] ?? '[^/]+'})${param[3] ? '?' : ''}`;
      return part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** A lookup of the methods `routes` take at a request path, built once; HEAD beside GET, as Hono answers it. */
export function allowedMethods(routes: readonly RouteEntry[]): (path: string) => string[] {
  let table: Array<{ pattern: RegExp; method: string }> | undefined;
  return (path) => {
    table ??= routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ pattern: routePattern(r.path), method: r.method.toUpperCase() }));
    const found = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (found.has('GET')) found.add('HEAD');
    return ORDER.filter((m) => found.has(m));
  };
}

/** The body-agnostic parts of a 405: the `Allow` value and a message for people. */
export function methodNotAllowed(
  method: string,
  path: string,
  allow: string[],
): { allow: string; message: string } {
  const list = allow.join(', ');
  return { allow: list, message: `${method} is not a method of ${path}; it takes ${list}` };
}
