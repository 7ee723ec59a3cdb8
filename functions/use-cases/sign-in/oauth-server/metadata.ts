/** The authorization server metadata of an auth app (RFC 8414, OpenID Connect Discovery; docs/contract.md §15). */

import type { Config } from '../../../config';
import { SUPPORTED_SCOPES } from '../../../domain/oauth-scopes';
import { CHALLENGE_METHOD } from '../../../domain/pkce';
import { issuerOf } from '../auth-urls';
import { SIGNING_ALG } from '../signing-keys';
import { GRANT_TYPES } from './token-grants';

/** The discovery document of app `slug`: exactly the fields contract §15 lists. */
export function serverMetadata(config: Config, slug: string) {
  const issuer = issuerOf(config, slug);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: [CHALLENGE_METHOD],
    token_endpoint_auth_methods_supported: ['none'],
    // The app's server key, as HTTP Basic (client_id the app_id) or as a Bearer token.
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer'],
    scopes_supported: [...SUPPORTED_SCOPES],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    authorization_response_iss_parameter_supported: true,
  };
}
