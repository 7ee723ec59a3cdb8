/** Errors of the OAuth routes: `{"error":"<message>","code":"<code>"}` as the specification's table gives. */
export class OAuthError extends Error {
  readonly status: 400 | 401 | 403 | 404 | 429 | 503;
  readonly code?: string;
  readonly retryAfter?: number;

  constructor(status: OAuthError['status'], message: string, code?: string, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}
