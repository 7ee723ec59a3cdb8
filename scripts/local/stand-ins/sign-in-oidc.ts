/**
 * The OpenID Connect parts of the local Google stand-in that client libraries read: its
 * discovery document (OpenID Connect Discovery 1.0, section 3), client authentication at the
 * token endpoint (RFC 6749 section 2.3.1: `client_secret_basic` and `client_secret_post`, one
 * at a time), and the authorization request's `response_type` and `scope` (OpenID Connect Core
 * 3.1.2.1: `code`, and `openid` among the scopes).
 */

/** Where the stand-in's Google answers, for a discovery document. */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/certs`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'email', 'profile'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    claims_supported: ['aud', 'email', 'email_verified', 'exp', 'iat', 'iss', 'name', 'nonce', 'sub'],
    code_challenge_methods_supported: ['S256'],
  };
}

/** The client a token request authenticates as, or the RFC 6749 error to answer. */
export type ClientAuth =
  | { clientId: string; clientSecret: string; method: 'client_secret_basic' | 'client_secret_post' }
  | { error: 'invalid_client' | 'invalid_request'; description: string };

/** Reads `client_secret_basic` (the Authorization header) or `client_secret_post` (the form); never both. */
export function clientAuth(authorization: string | undefined, form: URLSearchParams): ClientAuth {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '')?.[1];
  const posted = form.get('client_secret');
  if (basic !== undefined && posted !== null)
    return { error: 'invalid_request', description: 'use one client authentication method, not two' };
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // RFC 6749 2.3.1: both parts are form-urlencoded before they are joined.
    const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = part(decoded.slice(0, colon));
      clientSecret = part(decoded.slice(colon + 1));
    } catch {
      return { error: 'invalid_client', description: 'malformed Basic credentials' };
    }
    if (colon < 1 || !clientSecret)
      return { error: 'invalid_client', description: 'malformed Basic credentials' };
    const inForm = form.get('client_id');
    if (inForm !== null && inForm !== clientId)
      return { error: 'invalid_request', description: 'client_id differs from the Basic credentials' };
    return { clientId, clientSecret, method: 'client_secret_basic' };
  }
  const clientId = form.get('client_id');
  if (!clientId || !posted) return { error: 'invalid_client', description: 'client authentication failed' };
  return { clientId, clientSecret: posted, method: 'client_secret_post' };
}

/**
 * The error an authorization request is sent back to its redirect URI with (OpenID Connect Core
 * 3.1.2.6), or undefined: only the code flow, and for an OpenID provider `openid` among the scopes.
 */
export function authorizeError(params: URLSearchParams, openid: boolean): string | undefined {
  const responseType = params.get('response_type');
  if (openid && responseType === null) return 'invalid_request';
  if (responseType !== null && responseType !== 'code') return 'unsupported_response_type';
  if (openid && !(params.get('scope') ?? '').split(' ').includes('openid')) return 'invalid_scope';
  return undefined;
}

/** What a Google access token stands for, for the userinfo endpoint. */
export interface GoogleAccess {
  user: { id: string; email: string; name: string; verified: boolean };
  scopes: string[];
  expires: number;
}

/** The userinfo claims of `user` that `scopes` grant (OpenID Connect Core 5.4). */
export function userinfoClaims(user: GoogleAccess['user'], scopes: string[]): Record<string, unknown> {
  return {
    sub: user.id,
    ...(scopes.includes('email') ? { email: user.email, email_verified: user.verified } : {}),
    ...(scopes.includes('profile') ? { name: user.name } : {}),
  };
}
