import { describe, expect, it } from 'vitest';
import { checkIdTokenClaims, headerProblem, type IdTokenExpectations } from './id-token-rules';

const NOW = 1_800_000_000;
const WEB = 'web-client.apps.example';
const IOS = 'ios-client.apps.example';
const ANDROID = 'android-client.apps.example';

const expect0: IdTokenExpectations = {
  issuers: ['https://accounts.google.com', 'accounts.google.com'],
  audiences: [WEB, IOS, ANDROID],
  nowSeconds: NOW,
};

const claims = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: 'https://accounts.google.com',
  aud: WEB,
  sub: '1234567890',
  email: 'Person@Example.com',
  email_verified: true,
  name: 'A Person',
  picture: 'https://example.com/p.png',
  iat: NOW - 10,
  exp: NOW + 3600,
  ...over,
});

const reason = (c: Record<string, unknown>, e: IdTokenExpectations = expect0) => {
  const result = checkIdTokenClaims(c, e);
  return result.ok ? null : result.problem;
};

describe('ID-token header', () => {
  it('accepts RS256 with a kid', () => expect(headerProblem({ alg: 'RS256', kid: 'k1' })).toBeNull());
  it.each(['none', 'HS256', 'HS384', 'HS512', 'ES256', 'PS256', 'rs256', undefined])(
    'refuses alg %s',
    (alg) => {
      expect(headerProblem({ alg, kid: 'k1' })).toMatchObject({ kind: 'invalid' });
    },
  );
  it('refuses a token that names no key', () =>
    expect(headerProblem({ alg: 'RS256' })).toMatchObject({ kind: 'invalid' }));
});

describe('ID-token claims', () => {
  it('accepts a good token and lower-cases the e-mail', () => {
    const result = checkIdTokenClaims(claims(), expect0);
    expect(result).toEqual({
      ok: true,
      identity: {
        subject: '1234567890',
        email: 'person@example.com',
        emailVerified: true,
        name: 'A Person',
        picture: 'https://example.com/p.png',
        nonce: null,
        expiresAt: NOW + 3600,
      },
    });
  });
  it('accepts both Google issuer spellings', () => {
    expect(reason(claims({ iss: 'accounts.google.com' }))).toBeNull();
  });
  it('refuses another issuer', () =>
    expect(reason(claims({ iss: 'https://evil.example' }))?.reason).toMatch(/iss/));
  it.each([IOS, ANDROID, WEB])('accepts the registered audience %s', (aud) =>
    expect(reason(claims({ aud }))).toBeNull(),
  );
  it('refuses an unregistered audience', () =>
    expect(reason(claims({ aud: 'other' }))?.reason).toMatch(/aud/));
  it('refuses a missing audience', () => expect(reason(claims({ aud: undefined }))?.reason).toMatch(/aud/));
  it('accepts an audience list holding a registered ID with azp', () => {
    expect(reason(claims({ aud: [WEB, 'other'], azp: ANDROID }))).toBeNull();
  });
  it('refuses an audience list without azp', () =>
    expect(reason(claims({ aud: [WEB, 'other'] }))?.reason).toMatch(/azp/));
  it('refuses an unregistered azp', () => expect(reason(claims({ azp: 'other' }))?.reason).toMatch(/azp/));
  it('accepts a registered azp', () => expect(reason(claims({ azp: ANDROID }))).toBeNull());
  it('refuses an expired token (beyond the skew)', () =>
    expect(reason(claims({ exp: NOW - 61 }))?.reason).toMatch(/expired/));
  it('tolerates a minute of clock skew on exp', () => expect(reason(claims({ exp: NOW - 30 }))).toBeNull());
  it('refuses iat in the future', () => expect(reason(claims({ iat: NOW + 120 }))?.reason).toMatch(/future/));
  it('refuses a missing exp or iat', () => {
    expect(reason(claims({ exp: undefined }))?.reason).toMatch(/exp/);
    expect(reason(claims({ iat: undefined }))?.reason).toMatch(/iat/);
  });
  it('refuses nbf in the future', () =>
    expect(reason(claims({ nbf: NOW + 600 }))?.reason).toMatch(/not valid yet/));
  it('refuses a missing sub', () => expect(reason(claims({ sub: '' }))?.reason).toMatch(/sub/));
  it('a token without e-mail is its own problem (400, not 401)', () => {
    expect(reason(claims({ email: undefined }))).toEqual({
      kind: 'no_email',
      reason: 'the token carries no e-mail',
    });
  });
  it('email_verified false or absent is carried through, not refused', () => {
    const result = checkIdTokenClaims(claims({ email_verified: undefined }), expect0);
    expect(result.ok && result.identity.emailVerified).toBe(false);
    const legacy = checkIdTokenClaims(claims({ email_verified: 'true' }), expect0);
    expect(legacy.ok && legacy.identity.emailVerified).toBe(true);
  });
});

describe('ID-token nonce', () => {
  const raw = 'n-0S6_WzA2Mj';
  const hex = 'b7c8d2a8f3e1';
  const withNonce = { ...expect0, nonces: [raw, hex] };
  it('accepts the raw nonce', () => expect(reason(claims({ nonce: raw }), withNonce)).toBeNull());
  it('accepts the SHA-256 hex of the nonce', () =>
    expect(reason(claims({ nonce: hex }), withNonce)).toBeNull());
  it('refuses another nonce', () =>
    expect(reason(claims({ nonce: 'other' }), withNonce)?.reason).toMatch(/nonce/));
  it('refuses a token without nonce when the request sent one', () => {
    expect(reason(claims(), withNonce)?.reason).toMatch(/nonce/);
  });
  // contract §9: a nonce in the token proves nothing unless the request names it.
  it('refuses a token carrying a nonce when the request sent none', () => {
    expect(reason(claims({ nonce: 'set-by-the-sdk' }))?.reason).toMatch(/request sent none/);
  });
  it('accepts a token carrying a nonce without one in the request only with skip_nonce_check (iOS SDKs)', () => {
    expect(reason(claims({ nonce: 'set-by-the-sdk' }), { ...expect0, skipNonceCheck: true })).toBeNull();
    // The switch never lets a mismatching request nonce through.
    expect(reason(claims({ nonce: 'other' }), { ...withNonce, skipNonceCheck: true })?.reason).toMatch(
      /nonce/,
    );
  });
  it('refuses a nonce claim that is not a string', () =>
    expect(reason(claims({ nonce: 42 }), { ...expect0, skipNonceCheck: true })?.reason).toMatch(/nonce/));
  it('hands the token nonce on (issued nonces are burnt by it)', () => {
    const ok = checkIdTokenClaims(claims({ nonce: raw }), withNonce);
    expect(ok.ok && ok.identity.nonce).toBe(raw);
  });
});
