/**
 * The `client_secret` Tether presents at Apple's token endpoint: an ES256 JWT it signs itself
 * with the app's Sign in with Apple key (iss the team ID, sub the services ID, aud Apple), valid
 * for five minutes although Apple would take six months, so a leaked one is soon worthless.
 */
import { importPKCS8, SignJWT } from 'jose';

/** Apple's audience of every client secret. */
export const APPLE_AUDIENCE = 'https://appleid.apple.com';

/** How long a client secret is valid (at most ten minutes by our rule). */
const CLIENT_SECRET_TTL_SECONDS = 300;

/** The P-256 key of a PKCS#8 PEM, or null when `pem` is not one. */
export async function applePrivateKey(pem: string): Promise<CryptoKey | null> {
  try {
    return await importPKCS8(pem.trim(), 'ES256');
  } catch {
    return null;
  }
}

/** A client secret for services ID `servicesId` of team `teamId`, signed with key `keyId`. */
export async function appleClientSecret(input: {
  teamId: string;
  servicesId: string;
  keyId: string;
  privateKeyPem: string;
}): Promise<string> {
  const key = await applePrivateKey(input.privateKeyPem);
  if (!key) throw new Error('the Apple private key is not a PKCS#8 P-256 key');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: input.keyId })
    .setIssuer(input.teamId)
    .setSubject(input.servicesId)
    .setAudience(APPLE_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + CLIENT_SECRET_TTL_SECONDS)
    .sign(key);
}
