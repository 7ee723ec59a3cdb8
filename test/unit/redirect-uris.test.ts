import { describe, expect, it } from 'vitest';
import {
  checkAllowedOrigin,
  checkAllowedOrigins,
  matchRedirectUri,
} from '../../functions/domain/redirect-uris';
import { ACCEPTED_REDIRECTS, CORPUS_ORIGINS, REFUSED_REDIRECTS } from '../fixtures/redirect-corpus';

const reasonOf = (raw: string): string => {
  const check = checkAllowedOrigin(raw);
  if (check.ok) throw new Error(`${raw} was accepted as ${check.origin}`);
  return check.reason;
};

describe('allowed-origin registration', () => {
  it.each([
    ['myapp://auth', 'myapp://auth'],
    ['MyApp://Auth', 'myapp://auth'],
    ['com.example.app://callback', 'com.example.app://callback'],
    ['https://App.Example.com/', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['https://links.example.com/auth/callback', 'https://links.example.com/auth/callback'],
    ['https://*.preview.example.com', 'https://*.preview.example.com'],
  ])('accepts %s as %s', (raw, origin) => {
    expect(checkAllowedOrigin(raw)).toEqual({
      ok: true,
      origin,
      kind: raw.toLowerCase().startsWith('https') ? 'https' : 'custom_scheme',
    });
  });

  it('a custom scheme needs a host: three slashes are invalid', () => {
    expect(reasonOf('myapp:///callback')).toMatch(/three slashes/);
    expect(reasonOf('myapp://')).toMatch(/host is required/);
  });
  it('a custom scheme has no path', () => expect(reasonOf('myapp://auth/callback')).toMatch(/no path/));
  it('a custom scheme has no port, query or fragment', () => {
    expect(reasonOf('myapp://auth:80')).toMatch(/port/);
    expect(reasonOf('myapp://auth?x=1')).toMatch(/query/);
    expect(reasonOf('myapp://auth#x')).toMatch(/fragment/);
  });
  it.each(['myapp://*', 'myapp://*.auth', '*://auth', '*'])(
    'a wildcard never covers a custom scheme: %s',
    (raw) => {
      expect(reasonOf(raw)).toMatch(/wildcard|scheme/);
    },
  );
  it.each(['file', 'javascript', 'data', 'blob', 'about', 'vbscript', 'ftp', 'JavaScript', 'FILE'])(
    'the %s scheme is refused',
    (scheme) =>
      expect(reasonOf(`${scheme}://host`)).toMatch(new RegExp(`${scheme.toLowerCase()} scheme is refused`)),
  );
  it.each(['javascript:alert(1)', 'data:text/html,x', 'about:blank'])('%s is refused by scheme', (raw) => {
    expect(reasonOf(raw)).toMatch(/scheme is refused/);
  });
  it('plain http is refused with a reason', () =>
    expect(reasonOf('http://app.example.com')).toMatch(/https/));
  it.each([
    ['https://user@app.example.com', /userinfo/],
    ['https://app.example.com\\x', /backslash/],
    ['https://app%2eexample.com', /percent/],
    ['https://127.0.0.1', /domain/],
    ['https://localhost', /domain/],
    ['https://a*.example.com', /wildcard/],
    ['https://*.com', /domain|wildcard/],
    ['https://app.example.com/a//b', /path/],
    ['https://app.example.com/a/../b', /path|\.\./],
    ['https://app.example.com:0', /port/],
    ['https://app.example.com:70000', /port/],
    [' myapp://auth', /spaces/],
    ['myapp://aüth', /non-ASCII/],
    ['', /empty/],
  ])('refuses %j', (raw, reason) => expect(reasonOf(raw)).toMatch(reason));

  it('a list names the first refused entry by index and de-duplicates the rest', () => {
    expect(checkAllowedOrigins(['myapp://auth', 'MYAPP://auth', 'https://app.example.com/'])).toEqual({
      ok: true,
      origins: ['myapp://auth', 'https://app.example.com'],
    });
    expect(checkAllowedOrigins(['myapp://auth', 'myapp:///x'])).toMatchObject({ ok: false, index: 1 });
  });
  it('every corpus origin registers as itself', () => {
    expect(checkAllowedOrigins(CORPUS_ORIGINS)).toEqual({ ok: true, origins: CORPUS_ORIGINS });
  });
});

describe('redirect_uri matching', () => {
  it.each(ACCEPTED_REDIRECTS)('matches %s', (uri) =>
    expect(matchRedirectUri(uri, CORPUS_ORIGINS)).not.toBeNull(),
  );
  for (const [trick, uris] of Object.entries(REFUSED_REDIRECTS)) {
    it.each(uris)(`refuses (${trick}) %j`, (uri) => expect(matchRedirectUri(uri, CORPUS_ORIGINS)).toBeNull());
  }
  it('matches nothing when nothing is registered', () =>
    expect(matchRedirectUri('myapp://auth', [])).toBeNull());
});
