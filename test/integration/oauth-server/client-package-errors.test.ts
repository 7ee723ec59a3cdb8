/**
 * The client package tells a browser sign-in the auth app's setup refused from one the person
 * cancelled (docs/contract.md §15): the browser showed a page saying why, and signIn rejects with
 * the reason as its code, never `cancelled`.
 */
import { describe, expect } from 'vitest';
import { AuthError, createAuthClient, memoryStorage } from '../../../packages/auth-client/index.js';
import { createTestAuthApp } from '../../helpers/oauth';
import { oauthTest as it } from '../../helpers/oauth-fixtures';

/** A client whose browser is closed by the person (or shows a page and is closed). */
const clientOf = (authUrl: string, appId: string, redirectUri = 'myapp://auth') =>
  createAuthClient({ authUrl, appId, redirectUri, storage: memoryStorage(), openBrowser: async () => null });

const codeOf = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuthError);
  return (err as AuthError).code;
};

describe('client package: why a sign-in did not start', () => {
  it('an unknown app, a provider that is off and an unregistered redirect each have their code; a closed browser is cancelled', async ({
    worker,
    app,
  }) => {
    expect(await codeOf(clientOf(worker.baseUrl, 'no-such-app-c1').signIn('google'))).toBe('unknown_app');
    const off = await createTestAuthApp(worker.baseUrl, { github: false });
    expect(await codeOf(clientOf(worker.baseUrl, off.slug).signIn('github'))).toBe('provider_disabled');
    expect(await codeOf(clientOf(worker.baseUrl, app.slug, 'otherapp://auth').signIn('google'))).toBe(
      'redirect_uri_not_registered',
    );
    expect(await codeOf(clientOf(worker.baseUrl, app.slug).signIn('google'))).toBe('cancelled');
  });
});
