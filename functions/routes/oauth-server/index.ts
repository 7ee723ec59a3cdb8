/**
 * The standard OAuth 2.1 / OpenID Connect surface of every auth app (docs/contract.md §15),
 * beside the specification's own routes: discovery and the token endpoint.
 */
import { discoveryRoutes } from './discovery';
import { tokenEndpoint } from './token';

export { registeredOriginCors, STANDARD_ENDPOINT, standardErrors } from './shared';

/** The route groups of the standard surface, mounted with the auth service's (routes/oauth/index.ts). */
export const oauthServerGroups = [discoveryRoutes, tokenEndpoint];
