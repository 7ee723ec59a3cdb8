/**
 * The standard OAuth 2.1 / OpenID Connect surface of every auth app (docs/contract.md §15),
 * beside the mobile sign-in's own routes: discovery, authorize, token, revoke and userinfo.
 */
import { authorizeEndpoint } from './authorize';
import { discoveryRoutes } from './discovery';
import { revokeEndpoint } from './revoke';
import { tokenEndpoint } from './token';
import { userinfoEndpoint } from './userinfo';

export { registeredOriginCors, STANDARD_ENDPOINT, standardErrors } from './oauth-server-shared';

/** The route groups of the standard surface, mounted with the auth service's (routes/oauth/index.ts). */
export const oauthServerGroups = [
  discoveryRoutes,
  authorizeEndpoint,
  tokenEndpoint,
  revokeEndpoint,
  userinfoEndpoint,
];
