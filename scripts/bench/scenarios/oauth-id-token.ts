/**
 * POST /v1/{app}/oauth/id-token throughput and p99 against the floor, and the JWKS rule
 * (no JWKS fetch after the first during the run, counted at the local Google
 * stand-in). Tokens are RS256, signed by the stand-in, audience the app's web client id.
 */
import { SETUP_REQUEST_TIMEOUT_MS } from '../api';
import { holds, ratio } from '../stats';
import type { LoadRequest, Scenario } from '../types';
import { clientIp, createAuthApps, USERS_PER_APP, WEB_CLIENT_ID } from './oauth-fixtures';

const APPS = 10;
/** Per app, under the specification's 600 id-token sign-ins per app per 15 minutes. */
const PER_APP = 500;
/** Client addresses of the run start here, apart from the warm-up's. */
const IP_OFFSET = 1 << 20;

interface State {
  apps: string[];
  tokens: Map<string, string>;
}

const tokenKey = (appId: string, user: number): string => `${appId}/${user}`;

/** Native Google sign-in at full speed. */
export const oauthIdTokenScenario: Scenario<State> = {
  name: 'oauth id-token sign-in',
  issue: 5,
  target: 'no JWKS fetch during the run (throughput and p99 reported as ratios to the floor)',
  requires: ['POST /api/v1/projects/{id}/auth-apps', 'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}'],
  async setup(ctx) {
    const apps = await createAuthApps(ctx.api, APPS, 'idtoken');
    const tokens = new Map<string, string>();
    for (const appId of apps) {
      for (let u = 0; u < USERS_PER_APP; u++) {
        const email = `user-${u}@${appId}.bench.test`;
        tokens.set(tokenKey(appId, u), await ctx.google.signIdToken({ aud: WEB_CLIENT_ID, email }));
      }
    }
    // One sign-in per app first: the Worker fetches the JWKS here, if it has not already.
    for (const [i, appId] of apps.entries()) {
      const res = await fetch(`${ctx.stack.authUrl}/v1/${appId}/oauth/id-token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [ctx.clientIpHeader]: clientIp(i) },
        body: JSON.stringify({ provider: 'google', id_token: tokens.get(tokenKey(appId, 0)) }),
        signal: AbortSignal.timeout(SETUP_REQUEST_TIMEOUT_MS),
      });
      if (res.status !== 200)
        throw new Error(`warm-up id-token answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    }
    return { apps, tokens };
  },
  async measure(ctx, { apps, tokens }) {
    const total = apps.length * (PER_APP - 1);
    const requests: LoadRequest[] = Array.from({ length: total }, (_, i) => {
      const appId = apps[i % apps.length] as string;
      const user = Math.floor(i / apps.length) % USERS_PER_APP;
      return {
        method: 'POST',
        path: `/v1/${appId}/oauth/id-token`,
        headers: { 'content-type': 'application/json', [ctx.clientIpHeader]: clientIp(IP_OFFSET + i) },
        body: JSON.stringify({ provider: 'google', id_token: tokens.get(tokenKey(appId, user)) }),
      };
    });
    const before = ctx.google.jwksFetches();
    const m = await ctx.load({
      connections: ctx.settings.connections,
      mode: 'once',
      durationSec: ctx.settings.durationSec,
      requests,
      expectStatus: [200],
    });
    const during = ctx.google.jwksFetches() - before;
    const p99 = ratio(m.latency.p99, ctx.floor?.latency.p99);
    return [
      {
        scenario: this.name,
        issue: this.issue,
        measurement: m,
        checks: [
          holds(
            'no JWKS fetch during run',
            during === 0,
            `${during} (${ctx.google.jwksFetches()} in the whole bench)`,
          ),
          holds('no errors', m.errors === 0, String(m.errors)),
        ],
        note: `p99 ${p99?.toFixed(2)}x floor p99; throughput ${ratio(m.rps, ctx.floor?.rps)?.toFixed(2)}x floor`,
        details: { jwksDuringRun: during, jwksTotal: ctx.google.jwksFetches() },
      },
    ];
  },
};
