/**
 * Errors of the standard OAuth 2.1 / OpenID Connect endpoints (docs/contract.md §15): the body
 * RFC 6749 §5.2 gives, `{"error":"<code>","error_description":"<text for people>"}`, kept apart
 * from the mobile routes' own `{"error":"<message>","code":"<code>"}` (oauth-error.ts).
 */
import { HTTPException } from 'hono/http-exception';
import { OAuthError } from './oauth-error';

/** The error codes of RFC 6749 §5.2 and RFC 6750 §3.1 the standard endpoints answer with. */
export type StandardErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'access_denied'
  | 'temporarily_unavailable'
  | 'server_error';

export class StandardOAuthError extends HTTPException {
  override readonly status: 400 | 401 | 403 | 404 | 413 | 415 | 429 | 503;
  readonly error: StandardErrorCode;
  readonly retryAfter?: number;

  constructor(
    status: StandardOAuthError['status'],
    error: StandardErrorCode,
    description: string,
    retryAfter?: number,
  ) {
    super(status, { message: description });
    this.status = status;
    this.error = error;
    this.retryAfter = retryAfter;
  }
}

/**
 * The standard error for a refusal of the mobile routes' shared rules: an unusable code
 * or refresh token is invalid_grant, an unknown app invalid_client, a disabled account or app
 * invalid_grant (the grant cannot be used), a rate limit keeps its 429 and Retry-After.
 */
export function standardErrorOf(err: OAuthError): StandardOAuthError {
  const { status, message, retryAfter } = err;
  if (status === 429) return new StandardOAuthError(429, 'invalid_request', 'too many requests', retryAfter);
  if (status === 503) return new StandardOAuthError(503, 'temporarily_unavailable', message, retryAfter);
  if (status === 404)
    return new StandardOAuthError(401, 'invalid_client', `${message}: no auth app has this issuer`);
  if (status === 401) return new StandardOAuthError(401, 'invalid_client', message);
  if (err.code === 'invalid_grant' || status === 403)
    return new StandardOAuthError(400, 'invalid_grant', message);
  return new StandardOAuthError(400, 'invalid_request', message);
}

/** `err` as a standard error when it is one of the auth service's refusals, else unchanged. */
export const asStandardError = (err: Error): Error =>
  err instanceof OAuthError ? standardErrorOf(err) : err;
