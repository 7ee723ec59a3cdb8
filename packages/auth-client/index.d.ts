/** The end user of a session, as the auth service describes them. */
export interface User {
  id: string;
  email: string;
  email_verified: boolean;
  name: string | null;
  avatar_url: string | null;
  created_at: string;
  providers: string[];
}

/** A signed-in session as the client keeps it. */
export interface Session {
  /** Send as `Authorization: Bearer …` to your backend; verify it against the app's JWKS. */
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  /** When the access token expires, in Unix seconds. */
  expires_at: number;
  user: User;
}

/**
 * Where the session and a sign-in in progress are kept: `localStorage` on the web, the secure
 * store on a phone (`…/expo`), `memoryStorage()` elsewhere. Sync or async.
 */
export interface AuthStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** The part of WebCrypto the client uses (give one where the runtime has none, as Expo's entry does). */
export interface CryptoLike {
  getRandomValues(array: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer>;
  subtle: { digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
}

/**
 * Opens `url` in a browser session and resolves to the URL it was finally sent to once it starts
 * with `redirectUri` (the app's deep link), or null when the person closed it.
 */
export type OpenBrowser = (url: string, redirectUri: string) => Promise<string | null>;

export interface AuthClientOptions {
  /** The app's `SERVICE_AUTH_PUBLIC_URL` (`{auth_url}/v1/<app_id>`), or the auth service's address `{auth_url}`. */
  authUrl: string;
  /** The auth app's app_id (`SERVICE_AUTH_APP_ID`). */
  appId: string;
  /** Where the browser sign-in returns: one of the app's allowed origins (e.g. `myapp://auth`). */
  redirectUri: string;
  storage: AuthStorage;
  /** The browser session of the platform; on the web, without one, signIn navigates the page. */
  openBrowser?: OpenBrowser;
  fetch?: (
    input: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ) => Promise<Response>;
  crypto?: CryptoLike;
  /** Refresh this many seconds before the access token expires (default 60). */
  refreshMarginSeconds?: number;
  /** The clock in milliseconds (tests). */
  now?: () => number;
}

/** A provider whose ID tokens the auth service takes from native SDKs. */
export type IdTokenProvider = 'google' | 'apple' | (string & {});

export interface AuthClient {
  /**
   * The browser sign-in with PKCE: opens `/auth/{provider}`, takes the redirect's one-time code
   * and exchanges it. Resolves to the session (null on the web, where the page navigates away).
   */
  signIn(provider: 'google' | 'github' | 'apple' | (string & {})): Promise<Session | null>;
  /** Finishes a browser sign-in from the URL the app was opened with (state checked, code exchanged). */
  handleRedirect(url: string): Promise<Session>;
  /** Signs in with a provider SDK's ID token; `nonce` is the raw nonce the SDK was given. */
  signInWithIdToken(input: { provider: IdTokenProvider; idToken: string; nonce?: string }): Promise<Session>;
  /** A single-use nonce from the auth service (10 minutes) to give the provider SDK. */
  issueNonce(): Promise<{ nonce: string; expires_in: number }>;
  /**
   * The session, refreshed first when it expires within the margin (callers at the same time
   * share one refresh); null when signed out, including when the refresh token was refused.
   */
  getSession(options?: { forceRefresh?: boolean }): Promise<Session | null>;
  /** Forgets the session here and ends it at the auth service. */
  signOut(): Promise<void>;
  /** Called with each new session (sign-in, refresh) and with null on sign-out; returns the unsubscribe. */
  onSessionChange(listener: (session: Session | null) => void): () => void;
}

/** The client's one error: `code` (the service's, e.g. `invalid_grant`, or the client's own), HTTP `status` (0 without an answer) and `retryAfter` seconds. */
export class AuthError extends Error {
  code: string;
  status: number;
  retryAfter: number | null;
  constructor(code: string, message: string, details?: { status?: number; retryAfter?: number | null });
}

export const REFRESH_MARGIN_SECONDS: 60;
export function createAuthClient(options: AuthClientOptions): AuthClient;
export function memoryStorage(): AuthStorage;
export function sha256Hex(text: string, crypto?: CryptoLike): Promise<string>;
