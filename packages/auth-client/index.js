// @ts-check
/**
 * Tether's auth client for mobile and web apps: the browser sign-in with PKCE and the one-time
 * code, native ID tokens with issued nonces, and a session kept in the app's storage that
 * refreshes itself (one refresh however many callers wait for it, the rotated refresh token
 * stored before it can be used again, a reused token seen as signed out). No dependencies:
 * fetch and WebCrypto (or the `crypto` option where the runtime has none).
 */
import { base64url, hex, queryOf, queryString } from './encoding.js';
import { AuthError, errorFromResponse } from './errors.js';

export { AuthError } from './errors.js';

/** @typedef {import('./index.d.ts').AuthClientOptions} AuthClientOptions */
/** @typedef {import('./index.d.ts').AuthClient} AuthClient */
/** @typedef {import('./index.d.ts').Session} Session */
/** @typedef {import('./index.d.ts').AuthStorage} AuthStorage */
/** @typedef {import('./index.d.ts').CryptoLike} CryptoLike */

/** Why a browser sign-in cannot start, each its own AuthError code (never `cancelled`). */
const CONFIGURATION_ERRORS = [
  'unknown_app',
  'app_disabled',
  'redirect_uri_not_registered',
  'provider_disabled',
  'unknown_provider',
];

/** Seconds before expiry at which getSession refreshes. */
export const REFRESH_MARGIN_SECONDS = 60;

/**
 * Storage in memory: sessions last as long as the process (tests, server-side rendering).
 * @returns {AuthStorage}
 */
export function memoryStorage() {
  const items = new Map();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/**
 * The runtime's WebCrypto as the client's CryptoLike.
 * @returns {CryptoLike}
 */
const webCrypto = () => ({
  getRandomValues: (array) => globalThis.crypto.getRandomValues(array),
  subtle: { digest: (algorithm, data) => globalThis.crypto.subtle.digest(algorithm, data) },
});

/**
 * The SHA-256 of `text` in hex: what Apple's iOS SDK puts in the ID token for the nonce it was given.
 * @param {string} text
 * @param {CryptoLike} [cryptoImpl]
 */
export async function sha256Hex(text, cryptoImpl = webCrypto()) {
  return hex(await cryptoImpl.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/**
 * A client for one auth app.
 * @param {AuthClientOptions} options
 * @returns {AuthClient}
 */
export function createAuthClient(options) {
  const { authUrl, appId, storage } = options;
  if (!authUrl || !appId || !storage)
    throw new TypeError('createAuthClient needs authUrl, appId and storage');
  const cryptoImpl = options.crypto ?? webCrypto();
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const marginMs = (options.refreshMarginSeconds ?? REFRESH_MARGIN_SECONDS) * 1000;
  // SERVICE_AUTH_PUBLIC_URL already ends in /v1/<app_id>; the auth service's own address does not.
  const app = `/v1/${encodeURIComponent(appId)}`;
  const root = authUrl.replace(/\/+$/, '');
  const base = root.endsWith(app) ? root : `${root}${app}`;
  const sessionKey = `tether.${appId}.session`;
  const flowKey = `tether.${appId}.flow`;
  /** @type {Set<(session: Session | null) => void>} */
  const listeners = new Set();
  /** @type {Promise<Session | null> | undefined} */
  let loaded;
  /** @type {Promise<Session | null> | undefined} */
  let refreshing;
  // Bumped by every sign-in and sign-out, so a refresh that began before one never overwrites it.
  let generation = 0;

  const random = (/** @type {number} */ bytes) =>
    base64url(cryptoImpl.getRandomValues(new Uint8Array(bytes)));

  /**
   * POSTs `body` (JSON, or nothing) to a route of the app; the answer's JSON or an AuthError.
   * @param {string} path
   * @param {Record<string, unknown>} [body]
   */
  async function post(path, body) {
    let response;
    try {
      response = await doFetch(`${base}${path}`, {
        method: 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new AuthError('network_error', err instanceof Error ? err.message : String(err));
    }
    if (!response.ok) throw await errorFromResponse(response, now());
    return /** @type {Promise<Record<string, unknown>>} */ (response.json());
  }

  const notify = (/** @type {Session | null} */ session) => {
    for (const listener of [...listeners]) {
      try {
        listener(session);
      } catch {
        // one listener's failure must not keep the others from hearing
      }
    }
  };

  /** The stored session, read from storage once. */
  function load() {
    loaded ??= Promise.resolve(storage.getItem(sessionKey)).then((text) => {
      if (!text) return null;
      try {
        return /** @type {Session} */ (JSON.parse(text));
      } catch {
        return null;
      }
    });
    return loaded;
  }

  /**
   * Stores a session body from the auth service (before anyone can use its refresh token) and tells the listeners.
   * @param {Record<string, unknown>} body
   */
  async function save(body) {
    /** @type {Session} */
    const session = {
      access_token: String(body.access_token),
      refresh_token: String(body.refresh_token),
      token_type: 'Bearer',
      expires_at: Math.floor(now() / 1000) + Number(body.expires_in),
      user: /** @type {Session['user']} */ (body.user),
    };
    await storage.setItem(sessionKey, JSON.stringify(session));
    loaded = Promise.resolve(session);
    notify(session);
    return session;
  }

  async function clear() {
    await storage.removeItem(sessionKey);
    loaded = Promise.resolve(null);
    notify(null);
  }

  /** @param {Record<string, unknown>} body */
  async function signedIn(body) {
    generation++;
    refreshing = undefined;
    return save(body);
  }

  /**
   * Rotates the refresh token of `session`. A refused token (invalid_grant: expired, revoked, or
   * reused, which revokes the whole family) or a disabled account ends the session: signed out.
   * @param {Session} session
   */
  async function refresh(session) {
    const started = generation;
    try {
      const body = await post('/oauth/refresh', { refresh_token: session.refresh_token });
      if (started !== generation) return load();
      return await save(body);
    } catch (err) {
      if (!(err instanceof AuthError) || !(err.code === 'invalid_grant' || err.status === 403)) throw err;
      if (started === generation) await clear();
      return load();
    }
  }

  /**
   * Why a browser sign-in with `provider` could not start (an unknown or disabled app, a provider
   * that is off, a redirect that is not registered), asked of the authorization endpoint without
   * a PKCE challenge, so nothing starts and nothing is counted; null when nothing is wrong there.
   * @param {string} provider
   */
  async function whyRefused(provider) {
    const response = await doFetch(
      `${base}/oauth/authorize?${queryString({
        response_type: 'code',
        client_id: appId,
        redirect_uri: options.redirectUri,
        provider,
      })}`,
      { method: 'GET', headers: { accept: 'application/json' } },
    );
    const body = /** @type {{ reason?: unknown, error_description?: unknown }} */ (await response.json());
    if (typeof body.reason !== 'string' || !CONFIGURATION_ERRORS.includes(body.reason)) return null;
    const message = typeof body.error_description === 'string' ? body.error_description : body.reason;
    return new AuthError(body.reason, message, { status: response.status });
  }

  /** @param {string} url */
  async function handleRedirect(url) {
    const params = queryOf(url);
    const text = await storage.getItem(flowKey);
    /** @type {{ verifier: string, state: string } | null} */
    const flow = text ? JSON.parse(text) : null;
    if (!flow) throw new AuthError('no_sign_in_pending', 'no sign-in was started here');
    // A redirect of another flow (or forged) leaves the one in progress as it was.
    if (params.state !== flow.state)
      throw new AuthError('state_mismatch', 'the redirect is not of this sign-in');
    await storage.removeItem(flowKey);
    if (params.error !== undefined) throw new AuthError('sign_in_failed', params.error);
    if (!params.code) throw new AuthError('invalid_redirect', 'the redirect carries no code');
    return signedIn(await post('/oauth/exchange', { code: params.code, code_verifier: flow.verifier }));
  }

  return {
    async signIn(provider) {
      const verifier = random(32);
      const challenge = base64url(
        new Uint8Array(await cryptoImpl.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
      );
      const state = random(16);
      await storage.setItem(flowKey, JSON.stringify({ verifier, state, provider }));
      const url = `${base}/auth/${encodeURIComponent(provider)}?${queryString({
        redirect_uri: options.redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      })}`;
      if (!options.openBrowser) {
        const location = /** @type {{ location?: { assign?: (url: string) => void } }} */ (globalThis)
          .location;
        if (!location?.assign) throw new AuthError('no_browser', 'give createAuthClient an openBrowser');
        // A web page leaves for the provider; handleRedirect(location.href) finishes on its return.
        location.assign(url);
        return null;
      }
      const returned = await options.openBrowser(url, options.redirectUri);
      if (!returned) {
        await storage.removeItem(flowKey);
        // The browser may have shown a page saying why the sign-in could not start: ask the same.
        const refused = await whyRefused(provider).catch(() => null);
        if (refused) throw refused;
        throw new AuthError('cancelled', 'the sign-in was cancelled');
      }
      return handleRedirect(returned);
    },
    handleRedirect,
    async signInWithIdToken({ provider, idToken, nonce }) {
      const body = { provider, id_token: idToken, ...(nonce === undefined ? {} : { nonce }) };
      return signedIn(await post('/oauth/id-token', body));
    },
    async issueNonce() {
      const { nonce, expires_in } = await post('/oauth/nonce');
      return { nonce: String(nonce), expires_in: Number(expires_in) };
    },
    async getSession(opts = {}) {
      const session = await load();
      if (!session) return session;
      // forceRefresh: a new access token now (after the user's e-mail or the app's keys changed).
      if (!opts.forceRefresh && session.expires_at * 1000 - marginMs > now()) return session;
      if (!refreshing) {
        const shared = refresh(session).finally(() => {
          if (refreshing === shared) refreshing = undefined;
        });
        refreshing = shared;
      }
      return refreshing;
    },
    async signOut() {
      const session = await load();
      generation++;
      refreshing = undefined;
      await clear();
      // Signed out here whatever the service answers; ending the session there is a courtesy.
      if (session) await post('/logout', { refresh_token: session.refresh_token }).catch(() => undefined);
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
