/**
 * GitHub: the authorization redirect, the code exchange, and the person behind the token: the
 * user record and its verified primary e-mail (the only address GitHub vouches for).
 */
import type { Config } from '../../config';
import { sha256Base64url } from '../../lib/crypto';
import type { SignInProvider } from './provider';
import { ProviderFailure, providerFetch, providerJson } from './provider-failure';
import type { ProviderIdentity } from './users';

/** Where the browser goes to sign in with GitHub. */
export async function githubAuthorizeUrl(
  config: Config,
  input: { clientId: string; callbackUri: string; state: string; verifier: string },
): Promise<string> {
  const url = new URL(config.GITHUB_AUTHORIZE_URL);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.callbackUri);
  url.searchParams.set('scope', 'read:user user:email');
  url.searchParams.set('state', input.state);
  url.searchParams.set('allow_signup', 'true');
  url.searchParams.set('code_challenge', await sha256Base64url(input.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

const apiHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
  // GitHub refuses API requests without a User-Agent.
  'user-agent': 'tether-auth',
});

/** Exchanges GitHub's code and identifies the user by id and verified primary e-mail. */
export async function githubIdentity(
  config: Config,
  input: { clientId: string; clientSecret: string; code: string; callbackUri: string; verifier: string },
): Promise<ProviderIdentity> {
  const token = await providerJson('GitHub token exchange', config.GITHUB_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      client_id: input.clientId,
      client_secret: input.clientSecret,
      code: input.code,
      redirect_uri: input.callbackUri,
      code_verifier: input.verifier,
    }),
  });
  if (typeof token.access_token !== 'string')
    throw new ProviderFailure('GitHub token exchange: no access token');
  const api = config.GITHUB_API_URL.replace(/\/$/, '');
  const [user, emails] = await Promise.all([
    providerJson('GitHub user', `${api}/user`, { headers: apiHeaders(token.access_token) }),
    providerFetch('GitHub e-mails', `${api}/user/emails`, { headers: apiHeaders(token.access_token) }),
  ]);
  if (typeof user.id !== 'number' && typeof user.id !== 'string')
    throw new ProviderFailure('GitHub user: no id');
  const primary = Array.isArray(emails)
    ? emails.find(
        (e): e is { email: string } =>
          typeof e === 'object' &&
          e !== null &&
          e.primary === true &&
          e.verified === true &&
          typeof e.email === 'string',
      )
    : undefined;
  if (!primary) throw new ProviderFailure('GitHub account has no verified primary e-mail address');
  return {
    provider: 'github',
    subject: String(user.id),
    email: primary.email.trim().toLowerCase(),
    emailVerified: true,
    name:
      typeof user.name === 'string' && user.name
        ? user.name
        : typeof user.login === 'string'
          ? user.login
          : null,
    avatarUrl: typeof user.avatar_url === 'string' ? user.avatar_url : null,
  };
}

/** GitHub as a sign-in provider: no nonce (GitHub returns no ID token). */
export const github: SignInProvider = {
  sendsNonce: false,
  authorizeUrl: githubAuthorizeUrl,
  identify: githubIdentity,
};
