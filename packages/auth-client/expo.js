// @ts-check
/**
 * The client in a React Native / Expo app: the browser is expo-web-browser's auth session
 * (ASWebAuthenticationSession, Custom Tabs), the session lives in expo-secure-store (Keychain,
 * Keystore), randomness and SHA-256 come from expo-crypto, the redirect defaults to the app's
 * own `<scheme>://auth`, and `useSession()` re-renders on every sign-in, refresh and sign-out.
 */
import * as Crypto from 'expo-crypto';
import * as Linking from 'expo-linking';
import * as SecureStore from 'expo-secure-store';
import * as WebBrowser from 'expo-web-browser';
import { useEffect, useState } from 'react';
import { createAuthClient as createCoreClient } from './index.js';

export { AuthError, memoryStorage, REFRESH_MARGIN_SECONDS, sha256Hex } from './index.js';

/** @typedef {import('./index.d.ts').AuthClient} AuthClient */
/** @typedef {import('./index.d.ts').AuthStorage} AuthStorage */
/** @typedef {import('./index.d.ts').CryptoLike} CryptoLike */
/** @typedef {import('./index.d.ts').Session} Session */
/** @typedef {import('./expo.d.ts').ExpoAuthClientOptions} ExpoAuthClientOptions */

/**
 * Storage in the platform's secure store (keys are `tether.<appId>.…`, which it accepts).
 * @param {SecureStore.SecureStoreOptions} [options]
 * @returns {AuthStorage}
 */
export function secureStorage(options) {
  return {
    getItem: (key) => SecureStore.getItemAsync(key, options),
    setItem: (key, value) => SecureStore.setItemAsync(key, value, options),
    removeItem: (key) => SecureStore.deleteItemAsync(key, options),
  };
}

/**
 * The auth session of expo-web-browser: the URL the browser was sent back to, or null when closed.
 * @param {string} url
 * @param {string} redirectUri
 */
export async function openAuthSession(url, redirectUri) {
  const result = await WebBrowser.openAuthSessionAsync(url, redirectUri);
  return result.type === 'success' ? result.url : null;
}

/** expo-crypto in the shape of WebCrypto's part the client uses (Hermes has no crypto.subtle). */
/** @type {CryptoLike} */
export const expoCrypto = {
  getRandomValues: (array) => Crypto.getRandomValues(array),
  subtle: { digest: (_algorithm, data) => Crypto.digest(Crypto.CryptoDigestAlgorithm.SHA256, data) },
};

/**
 * A client with Expo's browser, secure storage and crypto; every option may still be given.
 * @param {ExpoAuthClientOptions} options
 * @returns {AuthClient}
 */
export function createAuthClient(options) {
  // On the web build the auth session is a popup, which this closes when it lands back here.
  WebBrowser.maybeCompleteAuthSession();
  return createCoreClient({
    storage: secureStorage(),
    openBrowser: openAuthSession,
    crypto: expoCrypto,
    redirectUri: Linking.createURL('auth'),
    ...options,
  });
}

/**
 * The client's session for a component: `loading` until the stored one was read (and refreshed
 * if it had to be), then each change as it happens.
 * @param {AuthClient} client
 * @returns {{ session: Session | null, loading: boolean, error: Error | null }}
 */
export function useSession(client) {
  const [state, setState] = useState(
    /** @type {{ session: Session | null, loading: boolean, error: Error | null }} */ ({
      session: null,
      loading: true,
      error: null,
    }),
  );
  useEffect(() => {
    let live = true;
    const off = client.onSessionChange((session) => {
      if (live) setState({ session, loading: false, error: null });
    });
    client.getSession().then(
      (session) => live && setState({ session, loading: false, error: null }),
      (error) => live && setState((s) => ({ ...s, loading: false, error })),
    );
    return () => {
      live = false;
      off();
    };
  }, [client]);
  return state;
}
