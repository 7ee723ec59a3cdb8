/**
 * What a sign-in provider is: one module (google.ts, github.ts, apple.ts) that brings its
 * settings (PATCH schema, stored shape, view, console fields), its browser flow (authorize URL,
 * callback by GET or form POST, code exchange) and its native ID-token verification. The
 * registry (provider-registry.ts) lists them; routes, console and CLI read it instead of naming providers.
 */

import type { Config } from '../../../config';
import type { IdTokenResult } from '../../../domain/id-token-rules';
import type { z } from '../../../lib/openapi';
import type { ProviderIdentity } from '../users';

/** A provider's settings as kept on the app row (its secret apart, encrypted with the others). */
export type StoredSettings = { enabled: boolean } & Record<string, unknown>;

/** One field of a provider's settings form in the console. */
export interface SettingsField {
  /** Dotted path in the PATCH body under providers.<name> (`native_client_ids.ios`). */
  key: string;
  label: string;
  /** text: one line; list: one per line; secret: write-only, one line; pem: write-only, several lines; flag: on or off. */
  type: 'text' | 'list' | 'secret' | 'pem' | 'flag';
  hint?: string;
  /** A blank text field sends null (clears the value) instead of leaving it out. */
  clearable?: boolean;
}

/** Where the browser is sent: this sign-in's single-use values and the provider's settings. */
export interface AuthorizeInput {
  settings: StoredSettings;
  callbackUri: string;
  state: string;
  /** Our PKCE verifier towards the provider. */
  verifier: string;
  /** Present when the provider `sendsNonce`. */
  nonce?: string;
}

/** The provider's callback, as our client redeems it. */
export interface IdentifyInput {
  settings: StoredSettings;
  /** The provider's secret (client secret, or Apple's private key). */
  secret: string;
  code: string;
  callbackUri: string;
  verifier: string;
  /** The nonce sent with the authorization request ('' when the provider sends none). */
  nonce: string;
  /** Every parameter of the callback (query or form), for what a provider sends beside the code. */
  params: Readonly<Record<string, string>>;
}

/** The browser flow of a provider. */
export interface BrowserFlow {
  /** Whether the authorization request carries a nonce the provider's answer must echo. */
  readonly sendsNonce: boolean;
  /** How the provider returns to us: a GET with a query, or a form POST (Apple). */
  readonly callbackMethod: 'GET' | 'POST';
  /** The provider's authorization URL for this sign-in. */
  authorizeUrl(config: Config, input: AuthorizeInput): Promise<string>;
  /** Redeems the provider's code and says who signed in; throws ProviderFailure when it cannot. */
  identify(config: Config, input: IdentifyInput): Promise<ProviderIdentity>;
}

/** A native sign-in: a provider ID token from the device's SDK. */
export interface IdTokenFlow {
  /**
   * Verifies `token` for an app with `settings`; `nonces` are the request's nonce and its
   * SHA-256 hex (undefined when the request sent none). Throws OAuthError 503 when the
   * provider's keys cannot be fetched.
   */
  verify(
    config: Config,
    input: { settings: StoredSettings; token: string; nonces: readonly string[] | undefined },
  ): Promise<IdTokenResult>;
  /** Who the verified token says signed in. */
  identity(result: Extract<IdTokenResult, { ok: true }>['identity']): ProviderIdentity;
}

/** A sign-in provider. */
export interface SignInProvider {
  /** The name in paths and settings: /auth/{name}, providers.{name}. */
  readonly name: string;
  /** The name people read ("Sign in with {title}"). */
  readonly title: string;
  /** providers.{name} of the auth app PATCH: an object of optional fields. */
  readonly patchSchema: z.ZodObject;
  /** providers.{name} of the auth app object (never a secret). */
  readonly viewSchema: z.ZodObject;
  /** The console's form fields, in order (after `enabled`). */
  readonly fields: readonly SettingsField[];
  /**
   * Merges a PATCH (validated by patchSchema) into the current settings and secret; a field
   * left out keeps its value. Throws ApiError VALIDATION_FAILED naming `providers.{name}.{field}`.
   */
  applyPatch(
    current: StoredSettings | undefined,
    patch: Record<string, unknown>,
    secret: string | undefined,
  ): Promise<{ settings: StoredSettings; secret: string | undefined }>;
  /** The settings as the auth app object shows them. */
  view(settings: StoredSettings, secretSet: boolean): Record<string, unknown>;
  /** Whether an app with these settings and this secret may sign in through the browser. */
  ready(settings: StoredSettings, secret: string | undefined): boolean;
  readonly browser?: BrowserFlow;
  readonly idToken?: IdTokenFlow;
}
