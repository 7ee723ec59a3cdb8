/**
 * What an auth app's signing keys are doing (docs/contract.md §15), for the console and
 * `tether auth keys`: the current key, the published next key (it becomes current at the next
 * rotation, and is safe to rotate to once every JWKS cache holds it: JWKS_MAX_AGE_SECONDS after
 * it was published), and the replaced keys still published until their last token expired.
 */
import type { StoredSigningKey } from '../../../db/schema';
import { currentKeyOf, isPublished, nextKeyOf, RETIRED_KEY_GRACE_MS } from './signing-keys';

/** The JWKS's Cache-Control max-age: a cache holds a fetched key set at most this long. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** The signing keys of an app as its managers see them (no private half). */
export interface SigningKeyStatus {
  current: { kid: string; created_at: string } | null;
  next: {
    kid: string;
    published_at: string;
    /** From when every JWKS cache holds it, so a rotation refuses no token anywhere. */
    ready_at: string;
    /** It signs nothing until then: the next rotation makes it current. */
    becomes_current: 'at_next_rotation';
  } | null;
  retired: Array<{ kid: string; retired_at: string; published_until: string }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The status of `keys` at `now`. */
export function signingKeyStatus(
  keys: readonly StoredSigningKey[],
  now: number = Date.now(),
): SigningKeyStatus {
  const current = currentKeyOf(keys);
  const next = nextKeyOf(keys);
  return {
    current: current ? { kid: current.kid, created_at: current.created_at } : null,
    next: next
      ? {
          kid: next.kid,
          published_at: next.created_at,
          ready_at: iso(Date.parse(next.created_at) + JWKS_MAX_AGE_SECONDS * 1000),
          becomes_current: 'at_next_rotation',
        }
      : null,
    retired: keys
      .filter((key) => key.retired_at !== undefined && key !== current && isPublished(key, now))
      .map((key) => ({
        kid: key.kid,
        retired_at: key.retired_at as string,
        published_until: iso(Date.parse(key.retired_at as string) + RETIRED_KEY_GRACE_MS),
      })),
  };
}
