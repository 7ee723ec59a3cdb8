/**
 * What the sign-in stand-ins (Google and GitHub, Apple) share: an RS256 key whose public half
 * their JWKS endpoint publishes, ID tokens signed with it as a provider's token endpoint
 * answers them, and a server listening on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** An ID token's registered claims and the provider's own `claims` (`nonce` only when the request had one). */
export interface IdTokenFields {
  issuer: string;
  audience: string;
  subject: string;
  lifetimeSeconds: number;
  nonce?: string;
  claims: Record<string, unknown>;
}

/** A stand-in's signing key: its JWK as published, and ID tokens signed with it. */
export interface IdTokenSigner {
  jwk: JWK;
  sign(fields: IdTokenFields): Promise<string>;
}

/** A new RS256 key named `<kidPrefix><random hex>`; `typ` goes into each token's header when given (Google sets JWT). */
export async function idTokenSigner(kidPrefix: string, typ?: 'JWT'): Promise<IdTokenSigner> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `${kidPrefix}${randomBytes(6).toString('hex')}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return {
    jwk,
    sign(f) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ ...f.claims, ...(f.nonce ? { nonce: f.nonce } : {}) })
        .setProtectedHeader(typ ? { alg: 'RS256', kid, typ } : { alg: 'RS256', kid })
        .setIssuer(f.issuer)
        .setAudience(f.audience)
        .setSubject(f.subject)
        .setIssuedAt(now)
        .setExpirationTime(now + f.lifetimeSeconds)
        .sign(privateKey);
    },
  };
}

/** Starts `server` on 127.0.0.1:`port` (a free port when 0); its origin and how to stop it. */
export async function listenLocal(
  server: Server,
  port = 0,
): Promise<{ origin: string; stop(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
