/**
 * contract §2's HTTP conventions, walked over the whole OpenAPI document: every management
 * route's 401 carries `WWW-Authenticate: Bearer` (with `error="invalid_token"` when a token was
 * sent), and every path answers a method it does not take with 405 and an `Allow` header
 * listing the ones it does. Regression: 401s had no challenge although the document declared
 * one on each, and `DELETE /api/v1/projects` was 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount } from '../helpers/api';

type Operation = { security?: unknown[] };
type Document = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
let doc: Document;
let token: string;

/** A request path for a document path: every `{param}` a fresh UUID (names no real thing). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, () => crypto.randomUUID());

beforeAll(async () => {
  const res = await api().get<Document>('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  token = (await createAccount()).token;
});

describe('401 on every management route', () => {
  it('carries WWW-Authenticate: Bearer without a token, and error="invalid_token" with a refused one', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && path.startsWith('/api/v1/') && item[m]?.security?.length !== 0).map(
        (m) => [m.toUpperCase(), path] as const,
      ),
    );
    expect(operations.length).toBeGreaterThan(80);
    const wrong: string[] = [];
    for (const [method, template] of operations) {
      const path = concrete(template);
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const none = await api().request(method, path, body);
      const refused = await api(undefined, 'tth_at_not-a-real-token').request(method, path, body);
      const seen = [
        none.status,
        none.headers.get('www-authenticate'),
        refused.status,
        refused.headers.get('www-authenticate'),
      ];
      const want = [401, 'Bearer', 401, 'Bearer error="invalid_token"'];
      if (JSON.stringify(seen) !== JSON.stringify(want))
        wrong.push(`${method} ${template}: ${JSON.stringify(seen)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('405 for a method a path does not take', () => {
  it('DELETE /api/v1/projects is 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD, POST', async () => {
    const res = await api(undefined, token).delete<{ error: { code: string } }>('/api/v1/projects');
    expect([res.status, res.body.error?.code, res.headers.get('allow')]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'GET, HEAD, POST',
    ]);
  });

  it('every path of the document answers a method it lacks with 405 and Allow listing its own', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      // A path whose pattern another path's also matches takes that one's methods too.
      const pattern = (t: string) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const path = concrete(template);
      const takes = new Set(
        Object.entries(doc.paths)
          .filter(([other]) => pattern(other).test(path))
          .flatMap(([, it]) => METHODS.filter((m) => it[m]).map((m) => m.toUpperCase())),
      );
      const missing = METHODS.map((m) => m.toUpperCase()).find((m) => !takes.has(m));
      if (!missing || !item) continue;
      checked++;
      const res = await api(undefined, token).request(missing, path, missing === 'GET' ? undefined : {});
      const allow = [...takes, ...(takes.has('GET') ? ['HEAD'] : [])].sort().join(', ');
      const code = template.startsWith('/api/')
        ? (res.body as { error?: { code?: string } }).error?.code
        : 'METHOD_NOT_ALLOWED';
      const seen = [res.status, code, (res.headers.get('allow') ?? '').split(', ').sort().join(', ')];
      if (JSON.stringify(seen) !== JSON.stringify([405, 'METHOD_NOT_ALLOWED', allow]))
        wrong.push(`${missing} ${template}: ${JSON.stringify(seen)} (want Allow ${allow})`);
    }
    expect(checked).toBeGreaterThan(50);
    expect(wrong).toEqual([]);
  });

  it('a path that is no route stays 404', async () => {
    const res = await api(undefined, token).delete<{ error: { code: string } }>('/api/v1/no-such-things');
    expect([res.status, res.body.error?.code, res.headers.get('allow')]).toEqual([404, 'NOT_FOUND', null]);
  });
});
