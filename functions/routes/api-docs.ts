/**
 * The API reference page, `GET /api/v1/docs`: Swagger UI (`swagger-ui-dist`'s prebuilt bundle
 * and stylesheet, so the page needs nothing from the internet) rendering
 * `GET /api/v1/openapi.json`. Public, like the document itself; the page sends no credentials
 * ("Try it out" takes a token typed into its Authorize dialog).
 *
 * The bundle and stylesheet (1.9 MB) are Workers static assets at `/api/v1/docs/…`
 * (scripts/local/build-assets.ts), served with a day's caching before the Worker runs: not part of
 * the script every isolate loads.
 */
import { Hono } from 'hono';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tether API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<main id="reference"><noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript></main>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', location.href).toString(),
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  persistAuthorization: false,
  validatorUrl: null,
});
`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The page and its own script, mounted at `/api/v1` before the management API's middleware. */
export const apiDocsRoutes = new Hono();

apiDocsRoutes.get('/docs', (c) => {
  c.header('content-security-policy', CSP);
  c.header('x-content-type-options', 'nosniff');
  c.header('cache-control', 'no-cache');
  return c.html(PAGE);
});
apiDocsRoutes.get('/docs/init.js', (c) =>
  c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }),
);
