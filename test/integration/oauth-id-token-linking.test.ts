/**
 * POST /v1/{appSlug}/oauth/id-token links a Google identity to an existing user by e-mail only
 * when Google verified it, so an unverified sign-up never takes over a victim's account.
 */
import { describe, expect } from 'vitest';
import { api } from '../helpers/api';
import { asClient, githubAccount, oneTimeCode, type TestAuthApp } from '../helpers/oauth';
import { oauthTest as it } from '../helpers/oauth-fixtures';
import type { ExtraWorker } from '../helpers/worker';

describe('linking by e-mail', () => {
  it('an ID token with an unverified address that a verified user holds is 403 and never signs in as that user; a verified one links', async ({
    standIn,
    worker,
    app,
    claims,
    signIn,
  }) => {
    const account = githubAccount();
    const email = account.emails[1]?.email as string;
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const gh = await api(worker.baseUrl).post(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    const userId = (gh.body as { user: { id: string } }).user.id;

    const unverified = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    // The takeover attempt (docs/auth-service.md, ID tokens): refused, and the user gained no identity.
    expect(unverified.status).toBe(403);
    expect(JSON.stringify(unverified.body)).not.toContain('access_token');

    const verified = await signIn({
      id_token: await standIn.signIdToken(claims({ email: email.toUpperCase() })),
    });
    expect(verified.status, verified.text).toBe(200);
    expect((verified.body as { user: { id: string; providers: string[] } }).user).toMatchObject({
      id: userId,
      providers: ['github', 'google'],
    });
  });
});

describe('account pre-hijacking', () => {
  const exchangeUser = async (
    { worker, app }: { worker: ExtraWorker; app: TestAuthApp },
    code: string,
    verifier: string,
  ) => {
    const res = await api(worker.baseUrl).post<{ user: { id: string; providers: string[] } }>(
      `/v1/${app.slug}/oauth/exchange`,
      { code, code_verifier: verifier },
      { headers: asClient() },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.user;
  };

  it("an unverified sign-up with a victim's address never shares the user the victim's verified sign-ins make", async ({
    standIn,
    worker,
    app,
    claims,
    signIn,
  }) => {
    const account = githubAccount();
    const email = account.emails[1]?.email as string;
    // The attacker gets a Google token for the victim's address that Google has not verified.
    const attackerClaims = claims({ email, email_verified: false });
    const attacker = await signIn({ id_token: await standIn.signIdToken(attackerClaims) });
    expect(attacker.status, attacker.text).toBe(200);
    const attackerUser = (attacker.body as { user: { id: string; email_verified: boolean } }).user;
    expect(attackerUser.email_verified).toBe(false);

    // The victim signs in with GitHub (verified): a user of their own, not the attacker's.
    const { code, verifier } = await oneTimeCode(worker.baseUrl, standIn, app.slug, account);
    const victim = await exchangeUser({ worker, app }, code, verifier);
    expect(victim.id).not.toBe(attackerUser.id);
    expect(victim.providers).toEqual(['github']);

    // A verified Google sign-in of the victim links to the victim's user, never to the attacker's.
    const google = await signIn({ id_token: await standIn.signIdToken(claims({ email })) });
    expect((google.body as { user: { id: string } }).user.id).toBe(victim.id);

    // The attacker's identity still reaches only the attacker's own user.
    const again = await signIn({ id_token: await standIn.signIdToken({ ...attackerClaims, jti: 'later' }) });
    expect((again.body as { user: { id: string; providers: string[] } }).user).toMatchObject({
      id: attackerUser.id,
      providers: ['google'],
    });
  });

  it('two unverified identities with one address get a user each', async ({ standIn, claims, signIn }) => {
    const email = `shared-${Date.now()}@example.test`;
    const first = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    const second = await signIn({
      id_token: await standIn.signIdToken(claims({ email, email_verified: false })),
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((second.body as { user: { id: string } }).user.id).not.toBe(
      (first.body as { user: { id: string } }).user.id,
    );
  });
});
