/**
 * GitHub: the authorization redirect, the code exchange, and the person behind the token: the
 * user record and its verified primary e-mail (the only address GitHub vouches for).
 */
import type { Config } from '../../../config';
import { sha256Base64url } from '../../../lib/crypto';
import { z } from '../../../lib/openapi';
import { ProviderFailure, providerFetch, providerJson } from '../provider-failure';
import type { ProviderIdentity } from '../users';
import { clientFields, clientPatchFields, clientViewFields, mergeClient } from './client-settings';
import type { AuthorizeInput, IdentifyInput, SignInProvider, StoredSettings } from './provider';

/** GitHub's settings as stored. */
const Stored = z.object({ enabled: z.boolean(), client_id: z.string() });
const Patch = z.object(clientPatchFields).strict();
const clientIdOf = (settings: StoredSettings): string => Stored.parse(settings).client_id;

/** Where the browser goes to sign in with GitHub. */
async function githubAuthorizeUrl(config: Config, input: AuthorizeInput): Promise<string> {
  const url = new URL(config.GITHUB_AUTHORIZE_URL);
  url.searchParams.set('client_id', clientIdOf(input.settings));
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
async function githubIdentity(config: Config, input: IdentifyInput): Promise<ProviderIdentity> {
  const token = await providerJson('GitHub token exchange', config.GITHUB_TOKEN_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      client_id: clientIdOf(input.settings),
      client_secret: input.secret,
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

/** GitHub as a sign-in provider: browser only (GitHub has no ID token), no nonce. */
export const github: SignInProvider = {
  name: 'github',
  title: 'GitHub',
  patchSchema: Patch,
  viewSchema: z.object(clientViewFields),
  fields: clientFields('GitHub'),
  async applyPatch(current, raw, secret) {
    const client = mergeClient('github', current, Patch.parse(raw), secret);
    return { settings: { enabled: client.enabled, client_id: client.client_id }, secret: client.secret };
  },
  view: (settings, secretSet) => ({ ...Stored.parse(settings), client_secret_set: secretSet }),
  ready: (settings, secret) => settings.enabled && Boolean(clientIdOf(settings)) && Boolean(secret),
  browser: {
    sendsNonce: false,
    callbackMethod: 'GET',
    authorizeUrl: githubAuthorizeUrl,
    identify: githubIdentity,
  },
};
