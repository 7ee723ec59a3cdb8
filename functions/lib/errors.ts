/**
 * The one error type of the management API. Each code maps to exactly one HTTP status here,
 * and the app's `onError` writes `{"error":{"code","message"}}` (CONTRACT §2).
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  NAME_CONFLICT: 409,
  NAME_TAKEN: 409,
  SHARED_CREDENTIAL: 409,
  UPGRADE_REQUIRED: 426,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

/** A management-API error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error a handler throws to answer with a code, its status and a message for people. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: (typeof ERROR_STATUS)[ErrorCode];
  readonly field?: string;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = field;
  }
}

/** Shorthands for the common cases. */
export const badRequest = (message: string, field?: string) => new ApiError('BAD_REQUEST', message, field);
export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'not allowed') => new ApiError('FORBIDDEN', message);
export const unauthorized = (message = 'missing or invalid credentials') =>
  new ApiError('UNAUTHORIZED', message);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
export const unavailable = (message: string) => new ApiError('SERVICE_UNAVAILABLE', message);
