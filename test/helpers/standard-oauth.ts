/**
 * The browser's part of a standard sign-in for tests (docs/contract.md §15): follows an
 * authorization URL to the Google stand-in, has the stand-in vouch for a fresh person with the
 * nonce Tether sent it, and returns where the provider's callback sends the browser back.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { asClient, cookiesOf } from './oauth';
import type { ProviderStandIn } from './provider-stand-in';

/** Completes a Google sign-in started at `authorizeUrl`; returns the redirect back to the app. */
export async function googleBrowser(
  standIn: ProviderStandIn,
  authorizeUrl: string,
  person: { email?: string; name?: string } = {},
): Promise<string> {
  const client = asClient();
  const start = await fetch(authorizeUrl, {
    redirect: 'manual',
    headers: { accept: 'text/html', ...client },
  });
  expect(start.status, await start.clone().text()).toBe(302);
  const toGoogle = new URL(start.headers.get('location') ?? '');
  const code = `g-${randomBytes(6).toString('hex')}`;
  standIn.googleCode(code, {
    sub: `g-${code}`,
    email: person.email ?? `${code}@example.test`,
    email_verified: true,
    name: person.name ?? 'Standard Person',
    nonce: toGoogle.searchParams.get('nonce'),
  });
  const callback = new URL(toGoogle.searchParams.get('redirect_uri') ?? '');
  callback.search = new URLSearchParams({ code, state: toGoogle.searchParams.get('state') ?? '' }).toString();
  const back = await fetch(callback, {
    redirect: 'manual',
    headers: { accept: 'text/html', cookie: cookiesOf(start), ...client },
  });
  expect(back.status, await back.clone().text()).toBe(302);
  return back.headers.get('location') ?? '';
}
