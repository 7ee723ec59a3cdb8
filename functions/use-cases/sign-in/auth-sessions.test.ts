import { createLocalJWKSet, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../config';
import { Keyring } from '../../lib/crypto';
import { withParams } from './browser-sign-in';
import { newSigningKey, publicJwks, signerOf } from './signing-keys';
import { toUserBody } from './users';

const config = {
  keyring: new Keyring(`k1:${Buffer.alloc(32, 7).toString('base64url')}`),
} as unknown as Config;

describe("an auth app's signing keys", () => {
  it('a new key signs ES256, publishes only its public half and keeps the private half encrypted', async () => {
    const stored = await newSigningKey(config);
    expect(stored.alg).toBe('ES256');
    expect(stored.public_jwk).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.any(String),
      y: expect.any(String),
      kid: stored.kid,
      alg: 'ES256',
      use: 'sig',
    });
    expect(JSON.stringify(publicJwks([stored]))).not.toMatch(/"d"/);
    const privateJwk = JSON.parse(await config.keyring.decrypt(stored.private_jwk_ciphertext)) as {
      d: string;
    };
    expect(stored.private_jwk_ciphertext).not.toContain(privateJwk.d);
    const signer = await signerOf(config, stored);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid })
      .sign(signer.key);
    await expect(jwtVerify(token, await importJWK(stored.public_jwk, 'ES256'))).resolves.toBeTruthy();
  });

  it("one app's key never verifies another app's token", async () => {
    const [a, b] = [await newSigningKey(config), await newSigningKey(config)];
    expect(a.kid).not.toBe(b.kid);
    const signer = await signerOf(config, a);
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: a.kid }).sign(signer.key);
    await expect(jwtVerify(token, createLocalJWKSet({ keys: publicJwks([b]) as JWK[] }))).rejects.toThrow();
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
