import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { withParams } from '../../functions/services/auth/browser-sign-in';
import { signingKeys } from '../../functions/services/auth/signing-keys';
import { toUserBody } from '../../functions/services/auth/users';

async function privateJwk(alg: 'ES256' | 'EdDSA', kid: string) {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid };
}

describe('access-token signing keys', () => {
  it('signs with the private JWK and publishes only its public half', async () => {
    const jwk = await privateJwk('ES256', 'k-1');
    const keys = await signingKeys(JSON.stringify(jwk));
    expect(keys).toMatchObject({ kid: 'k-1', alg: 'ES256' });
    expect(keys.publicJwks).toEqual([
      { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid: 'k-1', alg: 'ES256', use: 'sig' },
    ]);
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k-1' }).sign(keys.key);
    const publicKey = await importJWK(keys.publicJwks[0] as object, 'ES256');
    await expect(jwtVerify(token, publicKey)).resolves.toBeTruthy();
  });

  it('takes a key set whose first key signs while every key is published (rotation)', async () => {
    const next = await privateJwk('EdDSA', 'next');
    const old = await privateJwk('ES256', 'old');
    const keys = await signingKeys(JSON.stringify({ keys: [next, old] }));
    expect(keys).toMatchObject({ kid: 'next', alg: 'EdDSA' });
    expect(keys.publicJwks.map((k) => k.kid)).toEqual(['next', 'old']);
    expect(JSON.stringify(keys.publicJwks)).not.toMatch(/"d"/);
  });

  it('refuses a public key or a key without kid as the signer', async () => {
    const jwk = await privateJwk('ES256', 'k');
    const { d: _d, ...publicOnly } = jwk;
    await expect(signingKeys(JSON.stringify(publicOnly))).rejects.toThrow(/private/);
    const { kid: _kid, ...noKid } = jwk;
    await expect(signingKeys(JSON.stringify(noKid))).rejects.toThrow(/kid/);
  });
});

describe('redirect parameters', () => {
  it('appends a query to a custom scheme and encodes values', () => {
    expect(withParams('myapp://auth', '?', { code: 'a b&c', state: undefined })).toBe(
      'myapp://auth?code=a+b%26c',
    );
  });
  it("keeps the redirect_uri's own query and replaces parameters of the same names (§9: any query may follow)", () => {
    expect(
      withParams('https://app.example.com/cb?next=%2Fhome&code=planted&state=x', '?', {
        code: 'real',
        state: undefined,
      }),
    ).toBe('https://app.example.com/cb?next=%2Fhome&code=real');
    expect(withParams('myapp://auth/cb?', '?', { error: 'no' })).toBe('myapp://auth/cb?error=no');
  });
  it('puts web tokens in the fragment', () => {
    expect(withParams('https://app.example.com', '#', { access_token: 't', state: 's' })).toBe(
      'https://app.example.com#access_token=t&state=s',
    );
  });
});

describe('the user object', () => {
  it('has exactly the fields of the session body user', () => {
    const created = new Date('2026-01-02T03:04:05.000Z');
    expect(
      toUserBody({
        id: 'u1',
        email: 'a@example.test',
        emailVerified: true,
        name: null,
        avatarUrl: 'https://x/y.png',
        createdAt: created,
        providers: ['google'],
      }),
    ).toEqual({
      id: 'u1',
      email: 'a@example.test',
      email_verified: true,
      name: null,
      avatar_url: 'https://x/y.png',
      created_at: '2026-01-02T03:04:05.000Z',
      providers: ['google'],
    });
  });
});
