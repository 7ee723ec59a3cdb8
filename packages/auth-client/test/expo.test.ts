/**
 * The Expo entry's wiring, with the Expo modules replaced by fakes of their published APIs: the
 * sign-in opens expo-web-browser's auth session on the app's `Linking.createURL('auth')`, keeps
 * the session in expo-secure-store, draws randomness and SHA-256 from expo-crypto, and a closed
 * browser is the `cancelled` error.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({
  store: new Map<string, string>(),
  opened: [] as Array<[string, string]>,
  answer: { type: 'success', url: '' } as { type: string; url?: string },
}));

vi.mock('expo-secure-store', () => ({
  getItemAsync: async (key: string) => fake.store.get(key) ?? null,
  setItemAsync: async (key: string, value: string) => void fake.store.set(key, value),
  deleteItemAsync: async (key: string) => void fake.store.delete(key),
}));
vi.mock('expo-web-browser', () => ({
  maybeCompleteAuthSession: () => ({ type: 'failed', message: 'Not supported on this platform' }),
  openAuthSessionAsync: async (url: string, redirect: string) => {
    fake.opened.push([url, redirect]);
    const state = new URL(url).searchParams.get('state');
    return fake.answer.url === ''
      ? { ...fake.answer, url: `${redirect}?code=c0de&state=${state}` }
      : fake.answer;
  },
}));
vi.mock('expo-crypto', () => ({
  CryptoDigestAlgorithm: { SHA256: 'SHA-256' },
  getRandomValues: (array: Uint8Array) => randomFillSync(array),
  digest: async (_alg: string, data: Uint8Array) => {
    const out = createHash('sha256').update(data).digest();
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  },
}));
vi.mock('expo-linking', () => ({ createURL: (path: string) => `myapp://${path}` }));

const { createAuthClient } = await import('../expo.js');

const session = {
  access_token: 'a',
  refresh_token: 'r',
  expires_in: 900,
  token_type: 'Bearer',
  user: { id: 'u' },
};

beforeEach(() => {
  fake.store.clear();
  fake.opened.length = 0;
  fake.answer = { type: 'success', url: '' };
});

describe('the Expo entry', () => {
  it('signs in through the auth session to myapp://auth and keeps the session in the secure store', async () => {
    const bodies: unknown[] = [];
    const auth = createAuthClient({
      authUrl: 'https://auth.example.test',
      appId: 'shop-login',
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(init.body ?? '{}'));
        return new Response(JSON.stringify(session), { status: 200 });
      },
    });
    const signedIn = await auth.signIn('apple');
    const [[url, redirect] = ['', '']] = fake.opened;
    expect(redirect).toBe('myapp://auth');
    const q = new URL(url).searchParams;
    expect(url.startsWith('https://auth.example.test/v1/shop-login/auth/apple?')).toBe(true);
    const { code_verifier } = bodies[0] as { code_verifier: string };
    expect(q.get('code_challenge')).toBe(createHash('sha256').update(code_verifier).digest('base64url'));
    expect(bodies[0]).toEqual({ code: 'c0de', code_verifier });
    expect(JSON.parse(fake.store.get('tether.shop-login.session') ?? '{}')).toEqual(signedIn);
    expect(fake.store.has('tether.shop-login.flow')).toBe(false);
  });

  it('answers a closed browser with the cancelled error and forgets the sign-in', async () => {
    fake.answer = { type: 'cancel' };
    const auth = createAuthClient({ authUrl: 'https://auth.example.test', appId: 'shop-login' });
    await expect(auth.signIn('google')).rejects.toMatchObject({ code: 'cancelled' });
    expect([...fake.store.keys()]).toEqual([]);
  });
});
