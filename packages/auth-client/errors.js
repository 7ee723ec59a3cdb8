// @ts-check
/** The one error type of the client: what went wrong (`code`), the HTTP status and when to retry. */

/** A failure of the auth client; `status` is 0 when no answer came (network, cancelled). */
export class AuthError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ status?: number, retryAfter?: number | null }} [details]
   */
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'AuthError';
    this.code = code;
    this.status = details.status ?? 0;
    this.retryAfter = details.retryAfter ?? null;
  }
}

/** Codes for answers whose body names none (the auth service names only invalid_grant and invalid_token). */
const CODE_OF_STATUS = /** @type {Record<number, string>} */ ({
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'unknown_app',
  413: 'too_large',
  415: 'bad_request',
  429: 'rate_limited',
});

/**
 * Seconds to wait from a Retry-After header (seconds or an HTTP date), or null.
 * @param {string | null} header
 * @param {number} nowMs
 */
export function retryAfterSeconds(header, nowMs) {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The AuthError of a refused answer: the body's `code` when it has one, else one for its status.
 * @param {Response} response
 * @param {number} nowMs
 */
export async function errorFromResponse(response, nowMs) {
  /** @type {{ error?: unknown, code?: unknown }} */
  let body = {};
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says enough
  }
  const status = response.status;
  const code =
    typeof body.code === 'string'
      ? body.code
      : (CODE_OF_STATUS[status] ?? (status >= 500 ? 'server_error' : 'http_error'));
  const message = typeof body.error === 'string' ? body.error : `the auth service answered ${status}`;
  return new AuthError(code, message, {
    status,
    retryAfter: retryAfterSeconds(response.headers.get('retry-after'), nowMs),
  });
}
