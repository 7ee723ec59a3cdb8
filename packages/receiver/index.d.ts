/** A live patch as Tether sends it (contract §6). */
export interface Patch {
  site_id: string;
  project_id: string;
  set: Record<string, string>;
  unset: string[];
  reason: string;
  seq: number;
}

/** What `apply` is given: the names to set and unset, once per patch, in `seq` order per site. */
export interface Applied {
  set: Record<string, string>;
  unset: string[];
  reason: string;
  seq: number;
  siteId: string;
}

/** Where the last applied `seq` of each site is kept (default: memory). Keep it durable to survive restarts. */
export interface SeqStore {
  get(siteId: string): Promise<number | undefined>;
  set(siteId: string, seq: number): Promise<void>;
}

export interface ReceiverOptions {
  /** The webhook target's secret (or RUNTIME_PATCH_SECRET). */
  secret: string;
  /** Applies a patch; Tether is answered 2xx only once it resolved, 500 if it throws. */
  apply(patch: Applied): unknown | Promise<unknown>;
  store?: SeqStore;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

export interface Receiver {
  /** Checks and applies raw bytes with their X-Signature header. */
  receive(
    body: Uint8Array,
    signature: string | null,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A Fetch API handler: a Worker's `fetch`, Hono's `c.req.raw`, Deno, Bun. */
  handle(request: Request): Promise<Response>;
  /** A Node `http` handler. */
  node(
    req: AsyncIterable<Uint8Array> & {
      method?: string;
      headers: Record<string, string | string[] | undefined>;
    },
    res: { writeHead(status: number, headers: Record<string, string>): unknown; end(body: string): unknown },
  ): Promise<void>;
}

export const TOLERANCE_SECONDS: 300;
export function createReceiver(options: ReceiverOptions): Receiver;
export function verify(
  secret: string,
  body: Uint8Array,
  header: string | null,
  nowMs?: number,
): Promise<Patch>;
export function sign(secret: string, t: string, body: Uint8Array): Promise<string>;
export function memoryStore(): SeqStore;
export class DeliveryRefused extends Error {
  status: number;
  constructor(status: number, message: string);
}
