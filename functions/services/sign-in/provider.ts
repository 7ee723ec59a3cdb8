/**
 * What a sign-in provider of the browser flow does. Each provider is one file (google.ts,
 * github.ts) exporting one of these; providers.ts registers them by name, and the routes and
 * services look a provider up there instead of branching on its name.
 */
import type { Config } from '../../config';
import type { ProviderIdentity } from './users';

/** Where the browser is sent: our client at the provider, and the single-use values of this sign-in. */
export interface AuthorizeInput {
  clientId: string;
  callbackUri: string;
  state: string;
  /** Our PKCE verifier towards the provider. */
  verifier: string;
  /** Present when the provider `sendsNonce`. */
  nonce?: string;
}

/** The provider's callback, as our client redeems it. */
export interface IdentifyInput {
  clientId: string;
  clientSecret: string;
  code: string;
  callbackUri: string;
  verifier: string;
  /** The nonce sent with the authorization request ('' when the provider sends none). */
  nonce: string;
}

/** A sign-in provider of the browser flow. */
export interface SignInProvider {
  /** Whether the authorization request carries a nonce the provider's answer must echo. */
  readonly sendsNonce: boolean;
  /** The provider's authorization URL for this sign-in. */
  authorizeUrl(config: Config, input: AuthorizeInput): Promise<string>;
  /** Redeems the provider's code and says who signed in; throws ProviderFailure when it cannot. */
  identify(config: Config, input: IdentifyInput): Promise<ProviderIdentity>;
}
