/** The auth app an OAuth route names by its slug, with its provider settings and secrets. */
import { eq } from 'drizzle-orm';
import type { AuthAppRow } from '../../../db/rows';
import { authApps } from '../../../db/schema';
import type { Config } from '../../config';
import { OAuthError } from '../../lib/oauth-error';
import type { RequestContext } from '../../request-context';

export type { AuthAppRow };

/** A sign-in provider's name (see providers/provider-registry.ts). */
export type Provider = string;

/** Provider secrets by provider name (client secrets, Apple's key), kept encrypted in one JSON document. */
export type ProviderSecrets = Partial<Record<string, string>>;

/** The app a slug named, when it exists and is enabled: 404 when there is none, 403 when it is disabled. */
export function enabledApp(app: AuthAppRow | undefined): AuthAppRow {
  if (!app) throw new OAuthError(404, 'unknown app');
  if (!app.enabled) throw new OAuthError(403, 'this app is disabled');
  return app;
}

/** The app `slug` names (noted as known when there is one), or undefined. */
export async function findAppBySlug(
  { http }: Pick<RequestContext, 'http'>,
  slug: string,
): Promise<AuthAppRow | undefined> {
  const [app] = await http.select().from(authApps).where(eq(authApps.appId, slug)).limit(1);
  if (app) rememberApp(slug);
  return app;
}

/** Loads an enabled app by slug (see `enabledApp`). */
export async function loadEnabledApp(ctx: Pick<RequestContext, 'http'>, slug: string): Promise<AuthAppRow> {
  return enabledApp(await findAppBySlug(ctx, slug));
}

/** How long an isolate trusts that an app it has seen still exists. */
const KNOWN_APP_TTL_MS = 5 * 60_000;
/** Slugs of apps this isolate has seen, with when that knowledge expires; bounded. */
const knownApps = new Map<string, number>();
const MAX_KNOWN_APPS = 10_000;

/** Notes that app `slug` exists (it was just read from the metadata database). */
export function rememberApp(slug: string): void {
  if (knownApps.size >= MAX_KNOWN_APPS) knownApps.clear();
  knownApps.set(slug, Date.now() + KNOWN_APP_TTL_MS);
}

/** Whether this isolate saw app `slug` in the metadata database within the last five minutes. */
export const isKnownApp = (slug: string): boolean => (knownApps.get(slug) ?? 0) > Date.now();

/**
 * 404 unless app `slug` exists, asked before a request may touch a Durable Object, so a made-up
 * slug never creates one. An app this isolate has seen in the last five minutes costs no
 * round trip (the exchange stays without Postgres); any other costs one indexed read.
 */
export async function assertKnownApp({ http }: Pick<RequestContext, 'http'>, slug: string): Promise<void> {
  if (isKnownApp(slug)) return;
  const [row] = await http
    .select({ id: authApps.id })
    .from(authApps)
    .where(eq(authApps.appId, slug))
    .limit(1);
  if (!row) throw new OAuthError(404, 'unknown app');
  rememberApp(slug);
}

/** Decrypts the app's provider client secrets. */
export async function providerSecrets(config: Config, app: AuthAppRow): Promise<ProviderSecrets> {
  if (!app.providerSecretsCiphertext) return {};
  return JSON.parse(await config.keyring.decrypt(app.providerSecretsCiphertext)) as ProviderSecrets;
}
