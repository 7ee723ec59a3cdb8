import { describe, expect, it } from 'vitest';
import { ACCEPTED_REDIRECTS, CORPUS_ORIGINS, REFUSED_REDIRECTS } from '../../test/fixtures/redirect-corpus';
import { checkAllowedOrigin, checkAllowedOrigins } from './allowed-origins';
import { matchRedirectUri } from './redirect-uris';

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

  it.each([
    ['http://127.0.0.1', 'http://127.0.0.1'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1'],
    ['http://[::1]', 'http://[::1]'],
    ['http://[::1]:3000/', 'http://[::1]'],
    ['http://LOCALHOST', 'http://localhost'],
  ])('accepts the loopback origin %s as %s (every port matches it)', (raw, origin) => {
    expect(checkAllowedOrigin(raw)).toEqual({ ok: true, origin, kind: 'loopback' });
  });
  it.each([
    'http://127.0.0.2',
    'http://localhost.example.com',
    'http://0x7f.0.0.1',
    'http://[0:0:0:0:0:0:0:1]',
    'http://127.0.0.1/callback',
    'http://10.0.0.1',
  ])('http is refused for %s (only the three loopback origins)', (raw) => {
    expect(reasonOf(raw)).toMatch(/loopback|path/);
  });

  // The no-IP rule looked at the text only; a browser reads these as IPv4 addresses.
  it.each(['https://0x7f.0.0.1', 'https://0x7f000001.example.0x1', 'https://app.123', 'https://1.2.3.4.5'])(
    'a host a browser reads as an IP address is refused: %s',
    (raw) => expect(reasonOf(raw)).toMatch(/no IP address/),
  );
  it.each(['intent', 'chrome', 'chrome-extension', 'moz-extension', 'view-source', 'android-app', 'Intent'])(
    'the browser-internal %s scheme is refused',
    (scheme) =>
      expect(reasonOf(`${scheme}://host`)).toMatch(new RegExp(`${scheme.toLowerCase()} scheme is refused`)),
  );

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

describe('wildcards over public suffixes and schemes the system handles', () => {
  it.each([
    'https://*.github.io',
    'https://*.co.uk',
    'https://*.vercel.app',
    'https://*.pages.dev',
    'https://*.herokuapp.com',
  ])('refuses %s: it would cover domains anyone can register', (raw) => {
    expect(reasonOf(raw)).toMatch(/public suffix|registrable domain/);
  });

  it.each([
    ['https://*.mine.github.io', 'https://*.mine.github.io'],
    ['https://*.example.co.uk', 'https://*.example.co.uk'],
    ['https://myapp.github.io', 'https://myapp.github.io'],
  ])('accepts %s below a public suffix', (raw, origin) => {
    expect(checkAllowedOrigin(raw)).toEqual({ ok: true, origin, kind: 'https' });
  });

  it.each([
    'googlechrome://auth',
    'googlechromes://auth',
    'x-safari-https://auth',
    'itms-services://auth',
    'itms-apps://auth',
    'tel://auth',
    'mailto://auth',
    'sms://auth',
    'market://auth',
    'microsoft-edge://auth',
    'firefox://auth',
  ])('refuses %s: the browser or the OS opens it, never the app', (raw) => {
    expect(reasonOf(raw)).toMatch(/handles it itself/);
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
  it('answers the registered entry that matched', () => {
    expect(matchRedirectUri('https://app.example.com/x?y=1', CORPUS_ORIGINS)).toBe('https://app.example.com');
    expect(matchRedirectUri('https://pr-1.preview.example.com/a', CORPUS_ORIGINS)).toBe(
      'https://*.preview.example.com',
    );
  });
  it.each([
    ['http://127.0.0.1', 'http://127.0.0.1:51234/callback'],
    ['http://127.0.0.1', 'http://127.0.0.1/'],
    ['http://[::1]', 'http://[::1]:8080/cb?x=1'],
    ['http://localhost', 'http://LOCALHOST:3000/'],
  ])('the loopback origin %s matches %s on any port (RFC 8252, 7.3)', (entry, uri) =>
    expect(matchRedirectUri(uri, [entry])).toBe(entry),
  );
  it.each([
    ['http://127.0.0.1', 'http://127.0.0.1.example.com:8080/'],
    ['http://127.0.0.1', 'http://0x7f.0.0.1:8080/'],
    ['http://127.0.0.1', 'http://2130706433/'],
    ['http://127.0.0.1', 'https://127.0.0.1:8080/'],
    ['http://[::1]', 'http://[0:0:0:0:0:0:0:1]:8080/'],
    ['http://localhost', 'http://localhost.:3000/'],
    ['http://localhost', 'http://user@localhost:3000/'],
    ['http://localhost', 'http://localhost:3000/#x'],
    ['http://localhost', 'http://127.0.0.1:3000/'],
  ])('the loopback origin %s refuses %s', (entry, uri) => expect(matchRedirectUri(uri, [entry])).toBeNull());
});
