/**
 * Google in the local sign-in stand-in: an OpenID Connect provider (code flow with PKCE and
 * nonce, RS256 ID tokens, a JWKS, userinfo, discovery: ../sign-in-oidc.ts).
 */
import { randomBytes } from 'node:crypto';
import { GOOGLE_PUBLISHED } from '../../../../functions/config';
import { discoveryDocument, type GoogleAccess, userinfoClaims } from '../sign-in-oidc';
import { bearerOf, type ProviderStandIn } from './provider-stand-in';

/** Google's stand-in. */
export const googleStandIn: ProviderStandIn = {
  name: 'google',
  title: 'Google',
  openIdConnect: true,
  consoleSignIn: true,
  env: (origin) => ({
    GOOGLE_AUTHORIZE_URL: `${origin}/google/authorize`,
    GOOGLE_TOKEN_URL: `${origin}/google/token`,
    GOOGLE_JWKS_URL: `${origin}/google/certs`,
    GOOGLE_ISSUERS: `${origin}/google`,
  }),
  // Google's own tokens too: its published keys after the stand-in's (GOOGLE_PUBLISHED_JWKS_URL,
  // default Google's published key set), its issuers beside the stand-in's, so a real Google ID
  // token from a device signs in locally.
  localEnv(origin, given) {
    const own = googleStandIn.env(origin);
    const published = given.GOOGLE_PUBLISHED_JWKS_URL || GOOGLE_PUBLISHED.jwksUrl;
    return {
      ...own,
      GOOGLE_JWKS_URL: `${own.GOOGLE_JWKS_URL},${published}`,
      GOOGLE_ISSUERS: `${own.GOOGLE_ISSUERS},${GOOGLE_PUBLISHED.issuers}`,
    };
  },
  endpoints(kit) {
    const tokens = new Map<string, GoogleAccess>();
    return async (path, req, res) => {
      if (req.method === 'GET' && path === '/google/.well-known/openid-configuration') {
        kit.sendJson(res, 200, discoveryDocument(`${kit.origin()}/google`));
        return true;
      }
      if (path === '/google/userinfo' && (req.method === 'GET' || req.method === 'POST')) {
        const access = tokens.get(bearerOf(req));
        if (!access || access.expires < Date.now()) {
          res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
          res.end();
        } else kit.sendJson(res, 200, userinfoClaims(access.user, access.scopes));
        return true;
      }
      if (req.method === 'GET' && path === '/google/certs') {
        kit.sendJson(res, 200, { keys: [kit.signer.jwk] });
        return true;
      }
      if (req.method !== 'POST' || path !== '/google/token') return false;
      const form = await kit.readForm(req);
      if (form.get('grant_type') !== 'authorization_code') {
        kit.sendJson(res, 400, { error: 'unsupported_grant_type' });
        return true;
      }
      const pending = kit.redeem(req, form);
      if (typeof pending === 'string') {
        kit.sendJson(res, pending === 'invalid_client' ? 401 : 400, { error: pending });
        return true;
      }
      const { user } = pending;
      const idToken = await kit.signer.sign({
        issuer: `${kit.origin()}/google`,
        audience: pending.clientId,
        subject: user.id,
        lifetimeSeconds: 3600,
        nonce: pending.nonce,
        claims: { email: user.email, email_verified: user.verified, name: user.name },
      });
      const accessToken = `local-${randomBytes(16).toString('hex')}`;
      tokens.set(accessToken, { user, scopes: pending.scopes, expires: Date.now() + 3600_000 });
      kit.sendJson(res, 200, {
        access_token: accessToken,
        id_token: idToken,
        scope: pending.scopes.join(' '),
        token_type: 'Bearer',
        expires_in: 3600,
      });
      return true;
    };
  },
};
