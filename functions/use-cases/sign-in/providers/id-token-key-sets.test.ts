/**
 * A provider with several key sets (GOOGLE_JWKS_URL as a comma list; `npm start`: the stand-in's,
 * then Google's): the first set holding the token's kid decides, a set that cannot be fetched is
 * skipped, and only when no reachable set holds the kid is an unreachable one a 503.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderStandIn, startProviderStandIn } from '../../../../test/helpers/provider-stand-in';
import { OAuthError } from '../../../lib/oauth-error';
import { verifyIdToken } from './id-token';

const ISSUER = 'https://accounts.google.test';
let standIn: ProviderStandIn;
let google: ProviderStandIn;
/** A port that answers every request with 500: a key set that cannot be fetched. */
let broken: Server;
let brokenUrl: string;

beforeAll(async () => {
  standIn = await startProviderStandIn();
  google = await startProviderStandIn();
  broken = createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  const address = broken.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  brokenUrl = `http://127.0.0.1:${address.port}/certs`;
});

afterAll(async () => {
  await standIn?.close();
  await google?.close();
  broken?.close();
});

const claims = () => {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: 'web',
    sub: 's1',
    email: 'a@example.test',
    email_verified: true,
    iat: now,
    exp: now + 600,
  };
};

const check = (jwksUrls: string[]) => ({
  title: 'Google',
  jwksUrls,
  issuers: [ISSUER],
  audiences: ['web'],
  nonces: undefined,
});

describe('ID tokens against several key sets', () => {
  it('a token of the second set verifies; one of the first too', async () => {
    const sets = [`${standIn.url}/google/certs`, `${google.url}/google/certs`];
    expect((await verifyIdToken(await google.signIdToken(claims()), check(sets))).ok).toBe(true);
    expect((await verifyIdToken(await standIn.signIdToken(claims()), check(sets))).ok).toBe(true);
  });

  it('a kid no set holds is invalid, not a 503', async () => {
    const sets = [`${standIn.url}/google/certs`, `${google.url}/google/certs`];
    const result = await verifyIdToken(await google.signIdToken(claims(), { kid: 'nobody' }), check(sets));
    expect(result).toEqual({
      ok: false,
      problem: { kind: 'invalid', reason: 'signature or key not accepted' },
    });
  });

  it("an unreachable second set does not stop the first set's tokens (npm start with no network)", async () => {
    const sets = [`${standIn.url}/google/certs`, brokenUrl];
    expect((await verifyIdToken(await standIn.signIdToken(claims()), check(sets))).ok).toBe(true);
  });

  it('a token only an unreachable set could hold is a 503', async () => {
    const sets = [`${standIn.url}/google/certs`, brokenUrl];
    const verifying = verifyIdToken(
      await google.signIdToken(claims(), { kid: 'only-at-google' }),
      check(sets),
    );
    await expect(verifying).rejects.toBeInstanceOf(OAuthError);
    await expect(verifying).rejects.toMatchObject({ status: 503 });
  });
});
