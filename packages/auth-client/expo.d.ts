import type { SecureStoreOptions } from 'expo-secure-store';
import type { AuthClient, AuthClientOptions, AuthStorage, CryptoLike, Session } from './index.js';

export type {
  AuthClient,
  AuthClientOptions,
  AuthStorage,
  CryptoLike,
  IdTokenProvider,
  OpenBrowser,
  Session,
  User,
} from './index.js';
export { AuthError, memoryStorage, REFRESH_MARGIN_SECONDS, sha256Hex } from './index.js';

/** The core options with Expo's defaults: secure storage, the auth session, expo-crypto and `Linking.createURL('auth')`. */
export type ExpoAuthClientOptions = Omit<AuthClientOptions, 'storage' | 'redirectUri'> &
  Partial<Pick<AuthClientOptions, 'storage' | 'redirectUri'>>;

/** Storage in expo-secure-store. */
export function secureStorage(options?: SecureStoreOptions): AuthStorage;
/** expo-web-browser's auth session: the redirect URL, or null when the person closed it. */
export function openAuthSession(url: string, redirectUri: string): Promise<string | null>;
/** expo-crypto as the client's CryptoLike. */
export const expoCrypto: CryptoLike;
/** A client with Expo's browser, storage and crypto. */
export function createAuthClient(options: ExpoAuthClientOptions): AuthClient;
/** The session for a component, re-rendered on each change. */
export function useSession(client: AuthClient): {
  session: Session | null;
  loading: boolean;
  error: Error | null;
};
