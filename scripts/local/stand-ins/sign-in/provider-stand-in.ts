/**
 * What one sign-in provider brings to the local sign-in stand-in (sign-in-stand-in.ts): its
 * path under the stand-in, its name on the picker page, whether its authorization requests are
 * OpenID Connect's, its own endpoints (token, user info, keys) and the Worker variables that
 * point the provider here. The stand-in serves the shared part: the picker page and the codes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdTokenSigner } from '../id-token-signer';

/** A person you can sign in as. */
export interface TestUser {
  id: string;
  email: string;
  name: string;
  /** Whether the provider vouches for the address (an unverified one shows the linking rules). */
  verified: boolean;
}

/** A code the picker gave, waiting for the provider's token endpoint. */
export interface PendingCode {
  provider: string;
  user: TestUser;
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  challenge: string | undefined;
  scopes: string[];
  expires: number;
}

/** What the stand-in hands a provider's endpoints. */
export interface StandInKit {
  /** The stand-in's origin, e.g. `http://127.0.0.1:41234`. */
  origin(): string;
  /** Redeems a code of this provider once (client, redirect URI, expiry and PKCE checked); the OAuth error otherwise. */
  redeem(req: IncomingMessage, form: URLSearchParams): PendingCode | string;
  /** The stand-in's ID-token signer (its JWK is the key set the Worker is pointed at). */
  signer: IdTokenSigner;
  readForm(req: IncomingMessage): Promise<URLSearchParams>;
  sendJson(res: ServerResponse, status: number, body: unknown): void;
}

/** One provider's stand-in behaviour. */
export interface ProviderStandIn {
  /** Its name in the providers' registry, and its path under the stand-in (`/<name>/authorize`). */
  readonly name: string;
  /** Its name on the picker page. */
  readonly title: string;
  /** Whether its authorization requests are OpenID Connect's (`response_type` and `openid` required). */
  readonly openIdConnect: boolean;
  /** Whether the console signs in with it too (its CONSOLE_<NAME>_CLIENT_ID and _SECRET). */
  readonly consoleSignIn: boolean;
  /** The Worker variables that point the provider at the stand-in at `origin`. */
  env(origin: string): Record<string, string>;
  /**
   * What `npm start` sets for it beside the stand-in at `origin` (`given`: the variables already
   * chosen); {@link env} when absent.
   */
  localEnv?(origin: string, given: Record<string, string | undefined>): Record<string, string>;
  /**
   * Its own endpoints for one start of the stand-in (their state lives as long as it): serves
   * `path` and answers true, or answers false when the path is not one of its.
   */
  endpoints(kit: StandInKit): (path: string, req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

/** The bearer token of a request's Authorization header ('' when none). */
export const bearerOf = (req: IncomingMessage): string =>
  (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
