/**
 * The one error type of the management API, a Hono `HTTPException` with a code. Each code maps
 * to exactly one HTTP status here, and the app's one error handler (on-error.ts) writes
 * `{"error":{"code","message"}}` (contract §2).
 */
import { HTTPException } from 'hono/http-exception';

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  TARGET_REFUSED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  NAME_CONFLICT: 409,
  NAME_TAKEN: 409,
  SHARED_CREDENTIAL: 409,
  LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UPGRADE_REQUIRED: 426,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
  BAD_ENVIRONMENT: 500,
} as const;

/** A management-API error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The code of a status raised by Hono itself (a 4xx it answers on its own), for the error body. */
export function codeOfStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
    if (s === status) return code;
  }
  return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
}

/** The message of an error raised without one. */
const DEFAULT_MESSAGE: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'missing or invalid credentials',
  FORBIDDEN: 'not allowed',
};

/** An error a handler throws to answer with a code, its status and a message for people. */
export class ApiError extends HTTPException {
  readonly code: ErrorCode;
  override readonly status: (typeof ERROR_STATUS)[ErrorCode];
  readonly field?: string;
  /** Seconds the client should wait before trying again (sent as Retry-After), for a 429 or 503. */
  readonly retryAfter?: number;

  constructor(
    code: ErrorCode,
    message: string = DEFAULT_MESSAGE[code] ?? code.toLowerCase(),
    field?: string,
    retryAfter?: number,
  ) {
    super(ERROR_STATUS[code], { message });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = field;
    this.retryAfter = retryAfter;
  }
}
