/** A sign-in failure caused by (or reported by) the provider, with a message fit for the user. */
export class ProviderFailure extends Error {}

/** Fetches JSON from a provider; any transport, HTTP or OAuth error becomes a ProviderFailure naming `what`. */
export async function providerFetch(what: string, url: string, init: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000), redirect: 'manual' });
  } catch {
    throw new ProviderFailure(`${what}: the provider could not be reached`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderFailure(`${what}: the provider answered ${response.status} without JSON`);
  }
  const error =
    typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  if (!response.ok || typeof error === 'string') {
    throw new ProviderFailure(
      `${what}: the provider refused (${typeof error === 'string' ? error : `HTTP ${response.status}`})`,
    );
  }
  return parsed;
}

/** Like providerFetch, for answers that must be a JSON object. */
export async function providerJson(
  what: string,
  url: string,
  init: RequestInit,
): Promise<Record<string, unknown>> {
  const parsed = await providerFetch(what, url, init);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProviderFailure(`${what}: unexpected answer from the provider`);
  }
  return parsed as Record<string, unknown>;
}
