/**
 * The API reference page at /api/v1/docs: served by the Worker with its renderer's files (no
 * request leaves the machine), under a strict Content-Security-Policy, and it renders the
 * OpenAPI document's operations in Chromium.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, inject, it } from 'vitest';
import { chromiumForFile } from '../helpers/browser';

const base = inject('baseUrl');
const browser = chromiumForFile();

describe('GET /api/v1/docs', () => {
  it('is an HTML page without credentials, under a CSP that allows only its own scripts', async () => {
    const res = await fetch(`${base}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await res.text()).toContain('docs/swagger-ui-bundle.js');
  });

  it("serves the renderer's own files byte for byte from the npm package, cacheable", async () => {
    const require = createRequire(import.meta.url);
    for (const [file, type] of [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
    ] as const) {
      const res = await fetch(`${base}/api/v1/docs/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(type);
      expect(res.headers.get('cache-control')).toContain('max-age');
      expect(await res.text()).toBe(await readFile(require.resolve(`swagger-ui-dist/${file}`), 'utf8'));
    }
  });

  it('renders the operations of the OpenAPI document in Chromium, fetching nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(base) && !req.url().startsWith('data:')) elsewhere.push(req.url());
    });
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    await page.goto(`${base}/api/v1/docs`);
    await page.getByText('Tether management API').first().waitFor({ timeout: 30_000 });
    await page
      .locator('.opblock-summary-path', { hasText: '/projects/{id}/sites/{siteId}/connections' })
      .first()
      .waitFor();
    expect(elsewhere).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  });
});
