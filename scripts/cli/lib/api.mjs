// @ts-check
/** The management API over fetch: Bearer token, JSON both ways, errors mapped to exit codes. */
import createClient from 'openapi-fetch';
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
 * @typedef {{ apiUrl: string, token: string | undefined, timeoutMs?: number }} ApiOptions
 * @typedef {import('../../../types/api.js').paths} Paths
 * @typedef {import('../../../types/api.js').components['schemas']} Schemas
 * @typedef {import('../../../types/api.js').operations} Operations
 * @typedef {import('openapi-fetch').Client<Paths, 'application/json'> & { apiUrl: string, token: string }} Api
 *   openapi-fetch over the types generated from the API's own OpenAPI document: a path, its
 *   parameters, its body and its answer are checked against the routes by the typecheck.
 *   Every call either succeeds or throws (ApiRefusal, NetworkError); take the body with dataOf.
 */

/**
 * The JSON body an operation of the document takes, by its operationId.
 * @template {keyof Operations} K
 * @typedef {Operations[K] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never} BodyOf
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
 * The body of a call that succeeded: a refusal has already thrown an ApiRefusal and a failed
 * fetch a NetworkError; a success whose body is not JSON is a NetworkError too.
 * @template T
 * @param {Promise<{ data?: T, response: Response }>} pending a call of an Api
 * @returns {Promise<T>}
 */
export async function dataOf(pending) {
  try {
    return /** @type {T} */ ((await pending).data);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new NetworkError(`the server answered with something that is not JSON: ${err.message}`);
  }
}

/**
 * A client for the API; commands that need no login never build one.
 * @param {ApiOptions} opts
 * @returns {Api}
 */
export function createApi(opts) {
  const { apiUrl, timeoutMs = TIMEOUT_MS } = opts;
  const token = opts.token;
  if (!token) {
    throw new UsageError('not logged in: run `tether login --token <token>` or set TETHER_TOKEN');
  }

  /**
   * Sends one request the client built: bounded in time, never following a redirect, logged
   * under TETHER_DEBUG, and an error status thrown as the API's own refusal.
   * @param {Request} req
   */
  async function send(req) {
    const path = new URL(req.url).pathname;
    const started = Date.now();
    /** @type {Response} */
    let res;
    try {
      res = await fetch(req, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      debug(`${req.method} ${path} failed after ${Date.now() - started} ms: ${String(err)}`);
      throw networkErrorOf(err, apiUrl);
    }
    debug(`${req.method} ${path} -> ${res.status} in ${Date.now() - started} ms`);
    if (!res.ok) throw await refusalOf(res);
    return res;
  }

  /** @type {import('openapi-fetch').Client<Paths, 'application/json'>} */
  const client = createClient({
    baseUrl: apiUrl,
    fetch: send,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'x-tether-client': 'cli' },
  });
  return Object.assign(client, { apiUrl, token });
}
