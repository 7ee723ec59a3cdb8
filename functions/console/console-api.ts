/**
 * The console's way to the management API: every page and form calls the same routes the API
 * serves, in process (no network hop), with the dashboard session as its Bearer token. So every
 * rule (validation, roles, the order of checks, what is shown once) is the API's own; the console
 * holds no second copy of any of them.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { Bindings } from '../config';
import { CLIENT_HEADER } from '../use-cases/activity';

/** The Worker's own fetch: the Hono app every API request goes through. */
type ExecutionCtx = Context['executionCtx'];
export type Fetcher = (req: Request, env: Bindings, ctx?: ExecutionCtx) => Response | Promise<Response>;

/** An answer of the API that was not 2xx. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; field?: string };
}

/** Encodes each path segment given between the literal parts: api.get(path`/projects/${id}`). */
export function path(parts: TemplateStringsArray, ...values: string[]): string {
  return parts.reduce(
    (out, part, i) => out + part + (i < values.length ? encodeURIComponent(values[i] ?? '') : ''),
    '',
  );
}

/** A management API client bound to one console request and its session. */
export class ConsoleApi {
  constructor(
    private readonly baseUrl: string,
    private readonly env: Bindings,
    private readonly ctx: ExecutionCtx | undefined,
    private readonly fetcher: Fetcher,
    private readonly token: string,
    /** Headers every call carries: the console names itself and forwards the client's address. */
    private readonly forwarded: Record<string, string> = {},
  ) {}

  /** A client for the request `c`, calling the API as `token`. */
  static of(c: Context<AppEnv>, fetcher: Fetcher, token: string): ConsoleApi {
    let ctx: ExecutionCtx | undefined;
    try {
      ctx = c.executionCtx;
    } catch {
      ctx = undefined; // app.request() in unit tests has none.
    }
    // The Activity record names the console as the way in, and the person's address, not the Worker's.
    const ipHeader = c.get('config').CLIENT_IP_HEADER;
    const ip = c.req.header(ipHeader);
    const forwarded: Record<string, string> = {
      [CLIENT_HEADER]: 'console',
      ...(ip ? { [ipHeader]: ip } : {}),
    };
    return new ConsoleApi(c.req.url, c.env, ctx, fetcher, token, forwarded);
  }

  /** Calls `/api/v1{apiPath}`; throws {@link ApiFailure} on any status of 400 or more. */
  async call<T>(method: string, apiPath: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {
      ...this.forwarded,
      authorization: `Bearer ${this.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = new Request(new URL(`/api/v1${apiPath}`, this.baseUrl), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const res = await this.fetcher(req, this.env, this.ctx);
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (res.status >= 400) {
      const error = (parsed as ErrorBody).error ?? {};
      throw new ApiFailure(res.status, error.code ?? 'ERROR', error.message ?? res.statusText, error.field);
    }
    return parsed as T;
  }

  get<T>(apiPath: string): Promise<T> {
    return this.call<T>('GET', apiPath);
  }
  post<T>(apiPath: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', apiPath, body);
  }
  put<T>(apiPath: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', apiPath, body);
  }
  patch<T>(apiPath: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', apiPath, body);
  }
  delete<T>(apiPath: string): Promise<T> {
    return this.call<T>('DELETE', apiPath);
  }

  /** Like `get`, but a refusal for the caller's role (403) reads as `undefined`. */
  async getIfAllowed<T>(apiPath: string): Promise<T | undefined> {
    try {
      return await this.get<T>(apiPath);
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 403) return undefined;
      throw err;
    }
  }
}
