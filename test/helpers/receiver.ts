/**
 * A local HTTP endpoint that stands in for the platform's runtime or network API: it records
 * every request and lets a test wait for one, event driven (no polling, no sleeps).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  body: unknown;
  /** The status the receiver answered with (500 while failing, else 200). */
  status: number;
  /** 0-based arrival order. */
  index: number;
}

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`; any path is accepted. */
  url: string;
  /** Everything received so far, in order. */
  readonly requests: readonly ReceivedRequest[];
  /**
   * Resolves with the earliest request matching `predicate` (any request by default) not yet
   * returned by `next`, waiting for it if needed; rejects after `timeoutMs`. Failed (500)
   * deliveries count too: check `status` to tell them apart.
   */
  next(predicate?: (req: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  /**
   * Answers the next `n` requests with 500 (counted from now, added to any still pending);
   * with `matching`, only requests whose path and body it accepts count.
   */
  failNext(n: number, matching?: (req: { path: string; body: unknown }) => boolean): void;
  /** Like {@link failNext}, but answers 302 to {@link REDIRECT_PATH} instead of 500. */
  redirectNext(n: number, matching?: (req: { path: string; body: unknown }) => boolean): void;
  /**
   * Tells whether `req` carries `X-Signature: t=<unix seconds>,sha256=<hex HMAC-SHA256 of
   * "<t>.<rawBody>">` (contract §9) with `t` at most five minutes from now, as a runtime checks it.
   */
  verifySignature(req: ReceivedRequest, secret: string, nowMs?: number): boolean;
  close(): Promise<void>;
}

interface Waiter {
  predicate: (req: ReceivedRequest) => boolean;
  resolve: (req: ReceivedRequest) => void;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Where {@link Receiver.redirectNext} sends the sender. */
export const REDIRECT_PATH = '/moved';

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const taken = new Set<number>();
  const waiters = new Set<Waiter>();
  const failures: Array<{
    left: number;
    status: number;
    matching: (req: { path: string; body: unknown }) => boolean;
  }> = [];

  const offer = (req: ReceivedRequest): void => {
    for (const waiter of waiters) {
      if (!taken.has(req.index) && waiter.predicate(req)) {
        taken.add(req.index);
        waiters.delete(waiter);
        waiter.resolve(req);
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const body = parseJson(rawBody);
      const failure = failures.find((f) => f.left > 0 && f.matching({ path, body }));
      if (failure) failure.left--;
      const status = failure?.status ?? 200;
      const received: ReceivedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        rawBody,
        body,
        status,
        index: requests.length,
      };
      requests.push(received);
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 302 ? { location: REDIRECT_PATH } : {}),
      });
      res.end(status === 200 ? '{"ok":true}' : '{"error":"induced failure"}');
      offer(received);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    next(predicate = () => true, timeoutMs = 20_000) {
      const found = requests.find((req) => !taken.has(req.index) && predicate(req));
      if (found) {
        taken.add(found.index);
        return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve: (req) => {
            clearTimeout(timer);
            resolve(req);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`receiver: no matching request within ${timeoutMs} ms (${requests.length} received)`),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    failNext(n, matching = () => true) {
      failures.push({ left: n, status: 500, matching });
    },
    redirectNext(n, matching = () => true) {
      failures.push({ left: n, status: 302, matching });
    },
    verifySignature(req, secret, nowMs = Date.now()) {
      const header = req.headers['x-signature'];
      const parts = typeof header === 'string' ? /^t=(\d+),sha256=([0-9a-f]{64})$/.exec(header) : null;
      if (!parts) return false;
      const [, t, hex] = parts as unknown as [string, string, string];
      if (Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
      const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${req.rawBody}`).digest('hex'));
      const given = Buffer.from(hex);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
