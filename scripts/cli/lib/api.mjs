// @ts-check
/** The management API over fetch: Bearer token, JSON both ways, errors mapped to exit codes. */
import { ApiRefusal, NetworkError, UsageError } from './errors.mjs';

const TIMEOUT_MS = 30_000;

/**
 * With TETHER_DEBUG=1, each request's method, path, status and time go to stderr (never headers).
 * @param {string} line
 */
function debug(line) {
  if (process.env.TETHER_DEBUG === '1') process.stderr.write(`[tether] ${line}\n`);
}

/**
 * @typedef {{ apiUrl: string, token: string | undefined }} ApiOptions
 * @typedef {{
 *   apiUrl: string,
 *   token: string,
 *   get: <T>(path: string) => Promise<T>,
 *   post: <T>(path: string, body?: unknown) => Promise<T>,
 *   put: <T>(path: string, body?: unknown) => Promise<T>,
 *   patch: <T>(path: string, body?: unknown) => Promise<T>,
 *   del: <T>(path: string) => Promise<T>,
 *   request: (method: string, path: string, body?: unknown) => Promise<Response>,
 * }} Api
 */

/**
 * The API's message from an error response: `{"error":{"code","message"}}` on management
 * routes, `{"error","code"}` on OAuth routes, else the status line.
 * @param {Response} res
 * @returns {Promise<ApiRefusal>}
 */
export async function refusalOf(res) {
  const text = await res.text().catch(() => '');
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error =
    body && typeof body === 'object' ? /** @type {Record<string, unknown>} */ (body).error : undefined;
  if (error && typeof error === 'object') {
    const { message, code } = /** @type {Record<string, unknown>} */ (error);
    if (typeof message === 'string') {
      return new ApiRefusal(message, res.status, typeof code === 'string' ? code : undefined);
    }
  }
  if (typeof error === 'string') return new ApiRefusal(error, res.status, undefined);
  return new ApiRefusal(`HTTP ${res.status} ${res.statusText}`.trim(), res.status, undefined);
}

/**
 * Turns a failed fetch into a NetworkError naming the cause (refused, unknown host, timeout).
 * @param {unknown} err
 * @param {string} apiUrl
 */
export function networkErrorOf(err, apiUrl) {
  const e = /** @type {Error & { cause?: { code?: string, message?: string } }} */ (err);
  const reason =
    e?.name === 'TimeoutError'
      ? `no answer within ${TIMEOUT_MS / 1000} s`
      : e?.cause?.code || e?.cause?.message || e?.message;
  return new NetworkError(`cannot reach the API at ${apiUrl}: ${reason}`);
}

/**
 * A client for the API; commands that need no login never build one.
 * @param {ApiOptions} opts
 * @returns {Api}
 */
export function createApi(opts) {
  const { apiUrl } = opts;
  const token = opts.token;
  if (!token) {
    throw new UsageError('not logged in: run `tether login --token <token>` or set TETHER_TOKEN');
  }

  /**
   * @param {string} method
   * @param {string} path starting with /api/v1
   * @param {unknown} [body]
   */
  async function request(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'x-tether-client': 'cli',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const started = Date.now();
    try {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      debug(`${method} ${path} -> ${res.status} in ${Date.now() - started} ms`);
      return res;
    } catch (err) {
      debug(`${method} ${path} failed after ${Date.now() - started} ms: ${String(err)}`);
      throw networkErrorOf(err, apiUrl);
    }
  }

  /**
   * Sends a request and returns its JSON body, typed by the caller (the API's documented shape).
   * @template T
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<T>}
   */
  async function call(method, path, body) {
    const res = await request(method, path, body);
    if (!res.ok) throw await refusalOf(res);
    if (res.status === 204) return /** @type {T} */ (undefined);
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new NetworkError(
        `the server at ${apiUrl} answered ${method} ${path} with something that is not JSON`,
      );
    }
  }

  return {
    apiUrl,
    token,
    request,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
  };
}

/** Encodes one path segment. */
export const seg = encodeURIComponent;
