/**
 * A tiny typed HTTP client for tests, plus helpers that create accounts and projects with
 * unique names.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** What every request resolves to; it never throws on an HTTP error status. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  /** Parsed JSON when the response is JSON, else the text (cast `T` only after checking status). */
  body: T;
  /** The raw response text. */
  text: string;
  headers: Headers;
}

/** Extra request options. */
export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send this instead of JSON-encoding `body` (for malformed-body tests). */
  rawBody?: string;
  /** Follow redirects; off by default so tests can assert on 302s. */
  redirect?: 'follow' | 'manual' | 'error';
}

/** A client bound to a base URL and optionally a bearer token. */
export interface ApiClient {
  readonly baseUrl: string;
  /** The same client sending `Authorization: Bearer <token>`. */
  as(token: string): ApiClient;
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    opts?: RequestOptions,
  ): Promise<ApiResponse<T>>;
  get<T = Record<string, unknown>>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    opts?: RequestOptions,
  ): Promise<ApiResponse<T>>;
  put<T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    opts?: RequestOptions,
  ): Promise<ApiResponse<T>>;
  patch<T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    opts?: RequestOptions,
  ): Promise<ApiResponse<T>>;
  delete<T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    opts?: RequestOptions,
  ): Promise<ApiResponse<T>>;
}

/**
 * A client for `baseUrl` (the shared test Worker when omitted). Bodies are sent as JSON;
 * `path` is appended to the base URL as is.
 */
export function api(baseUrl: string = inject('baseUrl'), token?: string): ApiClient {
  const base = baseUrl.replace(/\/$/, '');
  async function request<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined = opts.rawBody;
    if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...opts.headers },
      body: payload,
      redirect: opts.redirect ?? 'manual',
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }
  return {
    baseUrl: base,
    as: (next) => api(base, next),
    request,
    get: (path, opts) => request('GET', path, undefined, opts),
    post: (path, body, opts) => request('POST', path, body, opts),
    put: (path, body, opts) => request('PUT', path, body, opts),
    patch: (path, body, opts) => request('PATCH', path, body, opts),
    delete: (path, body, opts) => request('DELETE', path, body, opts),
  };
}

/** A short random suffix for unique names: lowercase letters and digits. */
export function uniqueSuffix(): string {
  return BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString(36)
    .slice(0, 10);
}

/** A unique name matching the service's name rule (a letter first, then `a-z 0-9 - _`). */
export function uniqueName(prefix = 't'): string {
  return `${prefix}-${uniqueSuffix()}`;
}

/** An account created through the operator route. */
export interface TestAccount {
  id: string;
  email: string;
  /** An account token for `api().as(token)`. */
  token: string;
}

/** Creates an account (unique email unless given) with the operator token; throws unless 201. */
export async function createAccount(email?: string, baseUrl?: string): Promise<TestAccount> {
  const address = email ?? `user-${uniqueSuffix()}@example.test`;
  const res = await api(baseUrl, inject('operatorToken')).post<{
    account: { id: string; email: string };
    token: string;
  }>('/api/v1/accounts', { email: address });
  if (res.status !== 201) throw new Error(`create account: ${res.status} ${res.text}`);
  return { id: res.body.account.id, email: res.body.account.email, token: res.body.token };
}

/** A project as the API returns it. */
export interface TestProject {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

/** Creates a project owned by the holder of `token` (unique name unless given); throws unless 201. */
export async function createProject(token: string, name?: string, baseUrl?: string): Promise<TestProject> {
  const res = await api(baseUrl, token).post<TestProject>('/api/v1/projects', {
    name: name ?? uniqueName('proj'),
  });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${res.text}`);
  return res.body;
}

/** A new account owning a new project, on the Worker at `baseUrl`, with a client signed in as it. */
export async function createOwner(
  baseUrl: string,
): Promise<{ admin: ApiClient; projectId: string; token: string }> {
  const account = await createAccount(undefined, baseUrl);
  const project = await createProject(account.token, undefined, baseUrl);
  return { admin: api(baseUrl, account.token), projectId: project.id, token: account.token };
}
