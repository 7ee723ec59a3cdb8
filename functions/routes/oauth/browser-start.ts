/**
 * What every browser sign-in start shares, the mobile flow's /auth/{provider} and the
 * standard /oauth/authorize alike: the provider's callback URL, the registered provider and its
 * settings, and the start itself (counted, state kept server side and single use, bound to the
 * starting browser by a cookie (browser-binding.ts), the browser sent to the provider). A rule
 * added here holds for both starts.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { OAuthError } from '../../lib/oauth-error';
import { type AuthAppRow, providerSecrets } from '../../use-cases/sign-in/apps';
import { issuerOf } from '../../use-cases/sign-in/auth-urls';
import { issueState, newNonce, type StateRecord } from '../../use-cases/sign-in/one-time-codes';
import type { BrowserFlow, SignInProvider, StoredSettings } from '../../use-cases/sign-in/providers/provider';
import { providerNamed } from '../../use-cases/sign-in/providers/provider-registry';
import { countSignInStart } from '../../use-cases/sign-in/rate-limit';
import { requestContext } from '../shared';
import { bindToBrowser } from './browser-binding';
import { clientOf } from './oauth-shared';

/** A registered provider with a browser flow. */
export type BrowserProvider = SignInProvider & { browser: BrowserFlow };

/** The provider's callback URL of an app (registered with the provider). */
export function callbackUri(c: Context<AppEnv>, slug: string, provider: string): string {
  return `${issuerOf(c.get('config'), slug)}/auth/${provider}/callback`;
}

/** The registered provider `name` with a browser flow (404 otherwise). */
export function browserProvider(name: string): BrowserProvider {
  const provider = providerNamed(name);
  if (!provider?.browser) throw new OAuthError(404, `no browser sign-in with ${name}`);
  return provider as BrowserProvider;
}

/** The provider's settings and secret for `app`, when it is enabled and complete. */
export async function readyClient(
  c: Context<AppEnv>,
  app: AuthAppRow,
  provider: SignInProvider,
): Promise<{ settings: StoredSettings; secret: string } | null> {
  const settings = app.providers[provider.name];
  const secret = settings ? (await providerSecrets(c.get('config'), app))[provider.name] : undefined;
  if (!settings || !secret || !provider.ready(settings, secret)) return null;
  return { settings, secret };
}

/** The provider's settings and secret for `app`; 400 when it is not enabled and complete. */
export async function providerClient(c: Context<AppEnv>, app: AuthAppRow, provider: SignInProvider) {
  const client = await readyClient(c, app, provider);
  if (!client) throw new OAuthError(400, `provider ${provider.name} is not enabled for this app`);
  return client;
}

/** What a start keeps for the provider's callback, beyond what this module fills in. */
export type StartRecord = Omit<StateRecord, 'appId' | 'provider' | 'nonce' | 'providerVerifier'>;

/**
 * Starts a sign-in of `app` at `provider`, whose settings the caller checked: counted once the
 * request would keep provider state (an unknown app never gets an object), the state kept
 * server side (503 when the app's sign-ins in progress are at their cap) and bound to this
 * browser's cookie, the browser sent to the provider.
 */
export async function startAtProvider(
  c: Context<AppEnv>,
  input: {
    app: AuthAppRow;
    provider: BrowserProvider;
    client: { settings: StoredSettings; secret: string };
    record: StartRecord;
  },
): Promise<Response> {
  const { app, provider, client, record } = input;
  const slug = app.appId;
  const ctx = requestContext(c);
  await countSignInStart(ctx, { slug, client: clientOf(c) });
  const nonce = provider.browser.sendsNonce ? newNonce() : undefined;
  const verifier = newNonce();
  const state = await issueState(ctx, {
    slug,
    record: { ...record, appId: app.id, provider: provider.name, nonce, providerVerifier: verifier },
    pendingPerApp: ctx.config.SIGN_IN_PENDING_PER_APP,
  });
  const callback = callbackUri(c, slug, provider.name);
  await bindToBrowser(c, {
    state,
    callbackUri: callback,
    returnsByPost: provider.browser.callbackMethod === 'POST',
  });
  const location = await provider.browser.authorizeUrl(ctx.config, {
    settings: client.settings,
    callbackUri: callback,
    state,
    verifier,
    nonce,
  });
  c.header('Cache-Control', 'no-store');
  return c.redirect(location, 302);
}
