/**
 * Every route's sequential metadata round trips, counted on the wire: the test walks
 * every route of the OpenAPI document and holds each to its budget in {@link BUDGETS}. A read
 * (GET) makes at most one, caller and authorisation included; a write at most two besides its
 * work on the customer's cluster or provider; the code exchange none; an ID-token sign-in of a
 * returning user at most two. Trips sent side by side count once (see counting-ws-proxy.ts).
 *
 * A GET is called with the fixture's ids in its path (a new GET with a known path parameter
 * is covered as soon as it is documented); a write needs a row in {@link WRITES} that makes a
 * request it answers with success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Call,
  counted,
  type RoundTripWorld,
  startRoundTripWorld,
  stopRoundTripWorld,
} from '../helpers/round-trip-fixture';
import { documentedRoutes, routeRequest } from '../helpers/route-calls';
import { authRequests } from './round-trip-auth-requests';
import { OVER_BUDGET } from './round-trip-over-budget';
import { writeRequests } from './round-trip-writes';

/** The budget of every kind of route, as data. */
const BUDGETS = { read: 1, write: 2, exchange: 0, idTokenReturning: 2 } as const;

/** The budget of a route: a GET is a read, anything else a write, unless {@link AUTH_BUDGETS} says. */
const budgetOf = (method: string, path: string): number =>
  AUTH_BUDGETS[`${method} ${path}`] ?? (method === 'GET' ? BUDGETS.read : BUDGETS.write);

/** The auth service's routes: the exchange and a returning user's sign-ins. */
const AUTH_BUDGETS: Record<string, number> = {
  'POST /v1/{appSlug}/oauth/exchange': BUDGETS.exchange,
  // The standard token endpoint's code grant redeems the same one-time codes as the exchange.
  'POST /v1/{appSlug}/oauth/token': BUDGETS.exchange,
  'POST /v1/{appSlug}/oauth/id-token': BUDGETS.idTokenReturning,
  // The browser sign-in's callback is a GET, but it signs a user in: a returning user's sign-in.
  'GET /v1/{appSlug}/auth/{provider}/callback': BUDGETS.idTokenReturning,
  'POST /v1/{appSlug}/auth/{provider}/callback': BUDGETS.idTokenReturning,
};

const started: Partial<RoundTripWorld> = {};
let w: RoundTripWorld;
/** A successful request of every documented write (round-trip-writes.ts). */
let WRITES: Record<string, () => Promise<Call>>;
/** A successful request of every route of the auth service (round-trip-auth-requests.ts). */
let AUTH: Record<string, () => Promise<Call>>;

beforeAll(async () => {
  w = await startRoundTripWorld(started);
  WRITES = writeRequests(w);
  AUTH = authRequests(w);
}, 180_000);

afterAll(() => stopRoundTripWorld(started));

const documented = () => documentedRoutes(w);
const requestOf = (method: string, path: string) => routeRequest(w, { ...WRITES, ...AUTH }, method, path);

describe('sequential metadata round trips', () => {
  it('every route of the OpenAPI document keeps its budget', async () => {
    const over: string[] = [];
    const measured: string[] = [];
    for (const [method, path] of await documented()) {
      if (path === '/api/v1/openapi.json') continue;
      const route = `${method} ${path}`;
      const made = requestOf(method, path);
      if (typeof made === 'string') throw new Error(made);
      const call = await made();
      const res = await counted(w, call);
      const ok = call.ok ? call.ok.includes(res.status) : res.status >= 200 && res.status < 300;
      expect(ok, `${route} answered ${res.status}: ${res.text.slice(0, 200)}`).toBe(true);
      const allowed = OVER_BUDGET[route] ?? budgetOf(method, path);
      measured.push(`${route}: ${res.trips}`);
      if (res.trips > allowed) over.push(`${route}: ${res.trips} (budget ${allowed})`);
    }
    console.log(`sequential metadata round trips:\n${measured.join('\n')}`);
    expect(over).toEqual([]);
    // Some sixty routes, each with its own fixture, one after another.
  }, 240_000);

  it('the code exchange touches no metadata at all, and no route left its budget table', async () => {
    const made = AUTH['POST /v1/{appSlug}/oauth/exchange'] as () => Promise<Call>;
    const res = await counted(w, await made());
    expect(res.status, res.text).toBe(200);
    expect(w.proxy.count()).toBe(BUDGETS.exchange);
    const routes = new Set((await documented()).map(([m, p]) => `${m} ${p}`));
    for (const route of [...Object.keys(OVER_BUDGET), ...Object.keys(AUTH), ...Object.keys(WRITES)])
      expect(routes, `${route} is no longer documented`).toContain(route);
  });
});
