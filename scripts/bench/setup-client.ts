/** Small HTTP client the scenarios use for their setup, through the public API only. */

/** Longest any single setup request may take. */
export const SETUP_REQUEST_TIMEOUT_MS = 60_000;

/** The route does not exist in this build of the Worker (its 404 is the router's, not a handler's). */
export class RouteMissingError extends Error {
  constructor(readonly route: string) {
    super(`route missing: ${route}`);
    this.name = 'RouteMissingError';
  }
}

/** A response the caller did not expect. */
export class UnexpectedStatusError extends Error {
  constructor(
    readonly route: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${route} answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'UnexpectedStatusError';
  }
}

/**
 * Tells whether a 404 body is the router's "no such route" answer (functions/management-app.ts notFound)
 * rather than a handler's "no such thing".
 */
export function isRouterNotFound(path: string, body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (path.startsWith('/v1/')) return parsed.error === 'not found';
    const err = parsed.error as { code?: unknown; message?: unknown } | undefined;
    return (
      err?.code === 'NOT_FOUND' && typeof err.message === 'string' && err.message.startsWith('no route ')
    );
  } catch {
    return false;
  }
}

/** A raw answer: status, headers and text. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** JSON client bound to one base URL and bearer token. */
export class BenchApi {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  /** The Authorization header value. */
  get authorization(): string {
    return `Bearer ${this.token}`;
  }

  /** Sends a request and returns the raw answer, whatever its status. */
  async raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    const res = await fetch(this.baseUrl + path, {
      method,
      redirect: 'manual',
      signal: AbortSignal.timeout(SETUP_REQUEST_TIMEOUT_MS),
      headers: {
        authorization: this.authorization,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /**
   * Sends a request and parses the JSON answer; throws {@link RouteMissingError} on the
   * router's 404 and {@link UnexpectedStatusError} on any status not in `expect`.
   */
  async call<T>(method: string, path: string, body?: unknown, expect: number[] = [200, 201]): Promise<T> {
    const res = await this.raw(method, path, body);
    if (res.status === 404 && isRouterNotFound(path, res.text))
      throw new RouteMissingError(`${method} ${path}`);
    if (!expect.includes(res.status))
      throw new UnexpectedStatusError(`${method} ${path}`, res.status, res.text);
    return (res.text ? JSON.parse(res.text) : undefined) as T;
  }
}

/** Runs `task` over `items` with at most `limit` at a time, keeping the input order in the result. */
export async function inParallel<I, O>(
  items: readonly I[],
  limit: number,
  task: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  const out: O[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await task(items[index] as I, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Creates an account with the operator token and returns a client authenticated as it. */
export async function createBenchAccount(baseUrl: string, operatorToken: string): Promise<BenchApi> {
  const operator = new BenchApi(baseUrl, operatorToken);
  const created = await operator.call<{ token: string }>('POST', '/api/v1/accounts', {
    email: `bench-${Date.now()}@bench.test`,
    name: 'bench',
  });
  return new BenchApi(baseUrl, created.token);
}

/** Creates a project and returns its id. */
export async function createProject(api: BenchApi, name: string): Promise<string> {
  const project = await api.call<{ id: string }>('POST', '/api/v1/projects', { name });
  return project.id;
}
