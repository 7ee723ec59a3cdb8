/** The session cookie's cross-site guard: which cookie-only requests count as forged. */
import { describe, expect, it } from 'vitest';
import { isCrossSiteWrite } from './cross-site';

const PUBLIC = 'https://tether.example.com';
const request = (
  method: string,
  headers: Record<string, string> = {},
  url = 'http://127.0.0.1:8787/api/v1/projects',
) => new Request(url, { method, headers });

describe('isCrossSiteWrite', () => {
  it('reads never count, whatever their origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(isCrossSiteWrite(request(method, { origin: 'https://evil.example' }), PUBLIC)).toBe(false);
    }
  });

  it('a WebSocket upgrade counts as a change: from another site it is refused like a write', () => {
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade' };
    expect(isCrossSiteWrite(request('GET', { ...upgrade, origin: 'https://evil.example' }), PUBLIC)).toBe(
      true,
    );
    expect(isCrossSiteWrite(request('GET', { ...upgrade, 'sec-fetch-site': 'cross-site' }), PUBLIC)).toBe(
      true,
    );
    expect(isCrossSiteWrite(request('GET', { ...upgrade, origin: PUBLIC }), PUBLIC)).toBe(false);
  });

  it('a write from another origin counts; from the public or the request origin it does not', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(isCrossSiteWrite(request(method, { origin: 'https://evil.example' }), PUBLIC)).toBe(true);
      expect(
        isCrossSiteWrite(request(method, { origin: 'https://tether.example.com.evil.example' }), PUBLIC),
      ).toBe(true);
      expect(isCrossSiteWrite(request(method, { origin: 'null' }), PUBLIC)).toBe(true);
      expect(isCrossSiteWrite(request(method, { origin: PUBLIC }), PUBLIC)).toBe(false);
      expect(isCrossSiteWrite(request(method, { origin: 'http://127.0.0.1:8787' }), PUBLIC)).toBe(false);
    }
  });

  it('without Origin, Sec-Fetch-Site decides; a client that sends neither is no browser', () => {
    expect(isCrossSiteWrite(request('POST', { 'sec-fetch-site': 'cross-site' }), PUBLIC)).toBe(true);
    expect(isCrossSiteWrite(request('POST', { 'sec-fetch-site': 'same-site' }), PUBLIC)).toBe(true);
    expect(isCrossSiteWrite(request('POST', { 'sec-fetch-site': 'same-origin' }), PUBLIC)).toBe(false);
    expect(isCrossSiteWrite(request('POST', { 'sec-fetch-site': 'none' }), PUBLIC)).toBe(false);
    expect(isCrossSiteWrite(request('POST'), PUBLIC)).toBe(false);
  });
});
