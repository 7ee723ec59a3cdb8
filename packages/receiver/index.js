// @ts-check
/**
 * Receiving Tether's live patches (a webhook delivery target, or the platform-wide
 * RUNTIME_PATCH_URL): `X-Signature: t=<unix seconds>,sha256=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * checked over the raw bytes in constant time, `t` at most 300 s from the clock, `seq` above the
 * last one applied for the site, then `apply({set, unset, reason, seq})` once, and 2xx only after
 * it. No dependencies: WebCrypto and the Fetch API's Request and Response (Workers, Deno, Bun,
 * Node 18+).
 */

/** How far `t` may be from the receiver's clock, in seconds. */
export const TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

/**
 * `bytes` as lower-case hex.
 * @param {ArrayBuffer} bytes
 */
const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Whether two strings are equal, in time that depends only on their length.
 * @param {string} a
 * @param {string} b
 */
function constantTimeEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The hex HMAC-SHA256 of `"<t>." + body` under `secret`, over the body's raw bytes.
 * @param {string} secret
 * @param {string} t
 * @param {Uint8Array} body
 */
export async function sign(secret, t, body) {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const prefix = encoder.encode(`${t}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return hex(await crypto.subtle.sign('HMAC', key, message));
}

/** A delivery refused before anything was applied; `status` is what to answer. */
export class DeliveryRefused extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Checks `header` against the raw `body`; returns the parsed patch or throws DeliveryRefused.
 * @param {string} secret
 * @param {Uint8Array} body
 * @param {string | null} header the X-Signature header
 * @param {number} [nowMs]
 * @returns {Promise<import('./index.d.ts').Patch>}
 */
export async function verify(secret, body, header, nowMs = Date.now()) {
  const parts = /^t=(\d{1,12}),sha256=([0-9a-f]{64})$/.exec(header ?? '');
  if (!parts) throw new DeliveryRefused(401, 'missing or malformed X-Signature');
  const [, t = '', given = ''] = parts;
  const expected = await sign(secret, t, body);
  if (!constantTimeEqual(given, expected)) throw new DeliveryRefused(401, 'signature does not match');
  if (Math.abs(nowMs / 1000 - Number(t)) > TOLERANCE_SECONDS)
    throw new DeliveryRefused(401, 'signature is more than 300 s from this clock');
  let patch;
  try {
    patch = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new DeliveryRefused(400, 'body is not JSON');
  }
  const ok =
    patch &&
    typeof patch.site_id === 'string' &&
    typeof patch.seq === 'number' &&
    Number.isSafeInteger(patch.seq) &&
    typeof patch.set === 'object' &&
    patch.set !== null &&
    Array.isArray(patch.unset);
  if (!ok) throw new DeliveryRefused(400, 'body is not a live patch');
  return patch;
}

/** The default store of each site's last applied `seq`: this process's memory. */
export function memoryStore() {
  /** @type {Map<string, number>} */
  const last = new Map();
  return {
    /** @param {string} siteId */
    get: async (siteId) => last.get(siteId),
    /**
     * @param {string} siteId
     * @param {number} seq
     */
    set: async (siteId, seq) => {
      last.set(siteId, seq);
    },
  };
}

/**
 * The whole body of a Node request, as one array.
 * @param {AsyncIterable<Uint8Array>} req
 * @returns {Promise<Uint8Array>}
 */
async function readNodeBody(req) {
  /** @type {Uint8Array[]} */
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

/**
 * A receiver: `handle(request)` answers a Fetch API Request (a Worker's fetch, Hono's
 * `c.req.raw`); `node(req, res)` serves Node's http module.
 * @param {import('./index.d.ts').ReceiverOptions} options
 * @returns {import('./index.d.ts').Receiver}
 */
export function createReceiver(options) {
  const { secret, apply, store = memoryStore(), now = Date.now } = options;
  if (typeof secret !== 'string' || secret.length === 0)
    throw new TypeError('createReceiver: a secret is required');
  if (typeof apply !== 'function') throw new TypeError('createReceiver: apply is required');
  /** One chain per site, so a check and its apply never interleave with another patch's. */
  /** @type {Map<string, Promise<unknown>>} */
  const chains = new Map();
  /**
   * Settles once the last patch to arrive has joined its site's chain. Signatures are checked side
   * by side and finish in any order; patches still join their chains in the order they arrived.
   * @type {Promise<void>}
   */
  let joined = Promise.resolve();

  /**
   * @param {Uint8Array} body
   * @param {string | null} header
   * @returns {Promise<{ status: number, body: Record<string, unknown> }>}
   */
  function receive(body, header) {
    return admit(Promise.resolve(body), header);
  }

  /**
   * Takes the patch's turn at once, before its body is read or its signature checked.
   * @param {Promise<Uint8Array>} reading the body, still being read
   * @param {string | null} header
   * @returns {Promise<{ status: number, body: Record<string, unknown> }>}
   */
  async function admit(reading, header) {
    const checked = reading
      .then((body) => verify(secret, body, header, now()))
      .then(
        (patch) => ({ patch }),
        (err) => ({ err }),
      );
    const turn = joined;
    /** @type {() => void} */
    let done = () => undefined;
    joined = new Promise((resolve) => {
      done = resolve;
    });
    const outcome = await checked;
    await turn;
    if (!('patch' in outcome)) {
      done();
      const { err } = outcome;
      if (err instanceof DeliveryRefused) return { status: err.status, body: { error: err.message } };
      throw err;
    }
    const { patch } = outcome;
    const siteId = patch.site_id;
    const run = (chains.get(siteId) ?? Promise.resolve()).then(async () => {
      const last = await store.get(siteId);
      // Not above the last applied: a replay, or an older patch overtaken by a newer one that
      // already carried its names. Acknowledged so it is not sent again, never applied.
      if (last !== undefined && patch.seq <= last)
        return { status: 200, body: { applied: false, seq: patch.seq } };
      await apply({ set: patch.set, unset: patch.unset, reason: patch.reason, seq: patch.seq, siteId });
      await store.set(siteId, patch.seq);
      return { status: 200, body: { applied: true, seq: patch.seq } };
    });
    chains.set(
      siteId,
      run.catch(() => undefined),
    );
    done();
    try {
      return await run;
    } catch {
      // Not applied: a non-2xx makes Tether send it again (with a new seq).
      return { status: 500, body: { error: 'apply failed' } };
    }
  }

  return {
    receive,
    async handle(request) {
      if (request.method !== 'POST') return Response.json({ error: 'POST only' }, { status: 405 });
      const reading = request.arrayBuffer().then((bytes) => new Uint8Array(bytes));
      const answer = await admit(reading, request.headers.get('x-signature'));
      return Response.json(answer.body, { status: answer.status });
    },
    async node(req, res) {
      const header = req.headers['x-signature'];
      const reading = readNodeBody(req);
      const answer =
        req.method === 'POST'
          ? await admit(reading, typeof header === 'string' ? header : null)
          : await reading.then(() => ({ status: 405, body: { error: 'POST only' } }));
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    },
  };
}
