/** Scopes of the standard authorization server (docs/contract.md §15). */

/** Every scope an auth app grants; any other requested scope is left out of the grant (RFC 6749 §3.3). */
export const SUPPORTED_SCOPES = ['openid', 'email', 'profile', 'offline_access'] as const;

/** The scope granted when an authorization request names none. */
export const DEFAULT_SCOPE = 'openid email profile';

/**
 * The scope granted for a requested one: the supported scopes it names, in its order, once each
 * (the default when it names none). A client learns what it got from the token answer's `scope`.
 */
export function grantedScope(requested: string | undefined): string {
  if (requested === undefined || requested.trim() === '') return DEFAULT_SCOPE;
  const names = requested.split(' ').filter((name) => (SUPPORTED_SCOPES as readonly string[]).includes(name));
  return [...new Set(names)].join(' ');
}

/** Whether a granted scope asks for an ID token. */
export const hasOpenId = (scope: string | null | undefined): boolean =>
  (scope ?? '').split(' ').includes('openid');
