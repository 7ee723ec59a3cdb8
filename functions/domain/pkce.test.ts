import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { verifierMatches } from '../use-cases/sign-in/one-time-codes';
import { challengeProblem, isCodeChallenge, isCodeVerifier } from './pkce';

describe('code_verifier rule', () => {
  it('accepts 43 and 128 characters of the unreserved set', () => {
    expect(isCodeVerifier('a'.repeat(43))).toBe(true);
    expect(isCodeVerifier('A-._~z09'.repeat(16))).toBe(true);
  });
  it('refuses 42 and 129 characters', () => {
    expect(isCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isCodeVerifier('a'.repeat(129))).toBe(false);
  });
  it.each(['+', '/', '=', ' ', '%', 'é', '\n'])('refuses the character %j', (ch) => {
    expect(isCodeVerifier(`${'a'.repeat(42)}${ch}`)).toBe(false);
  });
  it('accepts what a standard client library generates', () => {
    for (let i = 0; i < 20; i++) expect(isCodeVerifier(oauth.generateRandomCodeVerifier())).toBe(true);
  });
});

describe('code_challenge rules', () => {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  it('no challenge and no method is the web flow', () =>
    expect(challengeProblem(undefined, undefined)).toBeNull());
  it('S256 with a 43-character challenge is accepted', () =>
    expect(challengeProblem(challenge, 'S256')).toBeNull());
  it('plain is refused', () => expect(challengeProblem(challenge, 'plain')).toMatch(/S256/));
  it('a missing method is refused (it would mean plain)', () =>
    expect(challengeProblem(challenge, undefined)).toMatch(/S256/));
  it('a lower-case s256 is refused', () => expect(challengeProblem(challenge, 's256')).toMatch(/S256/));
  it('a method without a challenge is refused', () =>
    expect(challengeProblem(undefined, 'S256')).not.toBeNull());
  it('a challenge of the wrong shape is refused', () => {
    expect(challengeProblem(challenge.slice(1), 'S256')).toMatch(/43/);
    expect(challengeProblem(`${challenge.slice(1)}=`, 'S256')).toMatch(/43/);
    expect(isCodeChallenge(`${challenge.slice(1)}+`)).toBe(false);
  });
});

describe('S256 comparison', () => {
  it('matches the RFC 7636 appendix B example', async () => {
    expect(
      await verifierMatches(
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      ),
    ).toBe(true);
  });
  it('agrees with oauth4webapi for random verifiers and refuses any other verifier', async () => {
    for (let i = 0; i < 10; i++) {
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      expect(await verifierMatches(verifier, challenge)).toBe(true);
      expect(await verifierMatches(oauth.generateRandomCodeVerifier(), challenge)).toBe(false);
    }
  });
  it('refuses the verifier sent as the challenge (plain)', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    expect(await verifierMatches(verifier, verifier)).toBe(false);
  });
});
