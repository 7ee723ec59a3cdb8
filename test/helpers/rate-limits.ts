/**
 * Helpers for the auth service's rate-limit tests: requests from a named client that the limits
 * count, sending many in batches, splitting answers into passed and 429, the Retry-After rule,
 * and the Durable Objects a Worker stored.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type ApiResponse, api } from './api';
import { asClient } from './oauth';

/** An exchange body of the right shape whose code was never issued. */
export const FAKE_CODE = { code: 'A'.repeat(43), code_verifier: 'v'.repeat(43) };

/**
 * An exchange (of {@link FAKE_CODE} unless `body` is given) and a Google ID-token sign-in with a
 * malformed token, from `client`, to the Worker `baseUrl()` names when called (it may restart).
 */
export function countedCalls(baseUrl: () => string) {
  return {
    exchange: (slug: string, client: string, body: unknown = FAKE_CODE) =>
      api(baseUrl()).post(`/v1/${slug}/oauth/exchange`, body, { headers: asClient(client) }),
    idToken: (slug: string, client: string) =>
      api(baseUrl()).post(
        `/v1/${slug}/oauth/id-token`,
        { provider: 'google', id_token: 'x.y.z' },
        { headers: asClient(client) },
      ),
  };
}

/** Runs `count` requests, 100 in flight at a time (more would exceed the local Postgres's connections). */
export async function inBatches(count: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const out: ApiResponse[] = [];
  for (let done = 0; done < count; done += 100) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(100, count - done) }, send))));
  }
  return out;
}

/** Four random hex digits, for a group of an IPv6 address or a slug. */
export const randomHex = () => randomBytes(2).toString('hex');

/**
 * The Durable Objects stored under `dir`, one name each: an object's database file, with the
 * journal files SQLite makes and removes beside it folded in. Objects whose state expired may
 * vanish meanwhile, so a test compares which names are new rather than how many there are.
 */
export async function storedObjects(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return new Set(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).replace(/-(wal|shm|journal)$/, '')),
  );
}

/** How many of `results` passed, and the ones refused with 429. */
export function split(results: ApiResponse[]) {
  const limited = results.filter((r) => r.status === 429);
  return { passed: results.length - limited.length, limited };
}

/** A 429's Retry-After is a whole number of seconds within the 15-minute window. */
export function expectRetryAfter(res: ApiResponse): void {
  const value = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(value)).toBe(true);
  expect(value).toBeGreaterThan(0);
  expect(value).toBeLessThanOrEqual(15 * 60);
}
