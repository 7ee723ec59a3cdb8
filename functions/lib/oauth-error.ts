/**
 * Errors of the OAuth routes: `{"error":"<message>","code":"<code>"}` as the error table of docs/auth-service.md
 * table gives, kept apart from the management API's ApiError (STYLE habit 2) but, like it, a
 * Hono `HTTPException` answered by the one error handler.
 */
import { HTTPException } from 'hono/http-exception';

export class OAuthError extends HTTPException {
  override readonly status: 400 | 401 | 403 | 404 | 429 | 503;
  readonly code?: string;
  readonly retryAfter?: number;

  constructor(status: OAuthError['status'], message: string, code?: string, retryAfter?: number) {
    super(status, { message });
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}
