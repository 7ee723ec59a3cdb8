/** A replaced signing key is published exactly as long as a token it signed can live. */
import { describe, expect, it } from 'vitest';
import type { StoredSigningKey } from '../../../db/schema';
import { isPublished, publicJwks, RETIRED_KEY_GRACE_MS } from './signing-keys';

const key = (kid: string, retired_at?: string): StoredSigningKey => ({
  kid,
  alg: 'ES256',
  public_jwk: { kid },
  private_jwk_ciphertext: 'x',
  created_at: '2026-01-01T00:00:00.000Z',
  ...(retired_at ? { retired_at } : {}),
});

describe('signing keys after a rotation', () => {
  const retiredAt = Date.parse('2026-01-01T12:00:00.000Z');
  const keys = [key('new'), key('old', new Date(retiredAt).toISOString())];

  it('publishes the old key while a token it signed (15 min, after a 2 min code) can still be valid', () => {
    expect(RETIRED_KEY_GRACE_MS).toBeGreaterThanOrEqual((900 + 120) * 1000);
    expect(publicJwks(keys, retiredAt + 900_000).map((k) => k.kid)).toEqual(['new', 'old']);
  });

  it('drops it once every such token has expired; the current key stays', () => {
    expect(publicJwks(keys, retiredAt + RETIRED_KEY_GRACE_MS + 1).map((k) => k.kid)).toEqual(['new']);
    expect(isPublished(key('new'), Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});
