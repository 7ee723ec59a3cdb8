/**
 * POST /v1/{app}/oauth/id-token throughput, p99 and workerd CPU per request against the floor,
 * and the JWKS rule (no JWKS fetch after the first during the run, counted at the local Google
 * stand-in). Tokens are RS256, signed by the stand-in, audience the app's web client id; every
 * request carries a token of its own, signed before the run, since the Worker refuses a token
 * that already signed in (a replay).
 */
import { SETUP_REQUEST_TIMEOUT_MS } from '../setup-client';
import { holds, ratio } from '../stats';
import type { LoadRequest, Scenario } from '../types';
import { clientIp, createAuthApps, USERS_PER_APP, WEB_CLIENT_ID } from './oauth-fixtures';

const APPS = 10;
/** Per app, under the documented 600 id-token sign-ins per app per 15 minutes. */
const PER_APP = 500;
/** Client addresses of the run start here, apart from the warm-up's. */
const IP_OFFSET = 1 << 20;

interface State {
  apps: string[];
}

const emailOf = (appId: string, user: number): string => `user-${user}@${appId}.bench.test`;

/** Native Google sign-in at full speed. */
export const oauthIdTokenScenario: Scenario<State> = {
  name: 'oauth id-token sign-in',
  issue: 5,
  target: 'no JWKS fetch during the run (throughput and p99 reported as ratios to the floor)',
  requires: ['POST /api/v1/projects/{id}/auth-apps', 'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}'],
  async setup(ctx) {
    const apps = await createAuthApps(ctx.api, APPS, 'idtoken');
    // One sign-in per app first: the Worker fetches the JWKS here, if it has not already.
    for (const [i, appId] of apps.entries()) {
      const idToken = await ctx.google.signIdToken({ aud: WEB_CLIENT_ID, email: emailOf(appId, 0) });
      const res = await fetch(`${ctx.stack.authUrl}/v1/${appId}/oauth/id-token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [ctx.clientIpHeader]: clientIp(i) },
        body: JSON.stringify({ provider: 'google', id_token: idToken }),
        signal: AbortSignal.timeout(SETUP_REQUEST_TIMEOUT_MS),
      });
      if (res.status !== 200)
        throw new Error(`warm-up id-token answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    }
    return { apps };
  },
  async measure(ctx, { apps }) {
    const total = apps.length * (PER_APP - 1);
    const requests: LoadRequest[] = [];
    for (let i = 0; i < total; i++) {
      const appId = apps[i % apps.length] as string;
      const email = emailOf(appId, Math.floor(i / apps.length) % USERS_PER_APP);
      const idToken = await ctx.google.signIdToken({ aud: WEB_CLIENT_ID, email });
      requests.push({
        method: 'POST',
        path: `/v1/${appId}/oauth/id-token`,
        headers: { 'content-type': 'application/json', [ctx.clientIpHeader]: clientIp(IP_OFFSET + i) },
        body: JSON.stringify({ provider: 'google', id_token: idToken }),
      });
    }
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
        note: `p99 ${p99?.toFixed(2)}x floor p99; throughput ${ratio(m.rps, ctx.floor?.rps)?.toFixed(2)}x floor; workerd CPU ${m.cpu?.workerd?.toFixed(3) ?? 'n/a'} ms/request`,
        details: {
          jwksDuringRun: during,
          jwksTotal: ctx.google.jwksFetches(),
          workerdCpuMsPerRequest: m.cpu?.workerd ?? null,
        },
      },
    ];
  },
};
