/**
 * POST /v1/{app}/oauth/exchange against its one unavoidable step and against a peer, in one run
 * (issue 19): workerd CPU per exchange <= 1.3x that of the exchange's Durable Object call alone
 * (the ceiling row: the exchange's own count-and-redeem of a live code, its record parsed), and
 * p99 <= 2x the p99 of oidc-provider's token endpoint redeeming authorization_code + PKCE codes
 * in its own process, warmed first with 6,000 grants (it halves its cost over the first 4,000).
 * Throughput and CPU per request against the warm peer are reported.
 *
 * Codes for both sides are minted together by the browser flow, alternately for the exchange's
 * apps and the ceiling's, so both redeem records of the same size in objects of the same
 * fill. Each side is warmed with a tenth of its codes, then measured in two halves alternated
 * with the other side's, so background load on the shared machine falls on both alike. Every
 * request goes once, from 10 connections of a load generator in another process. The earlier
 * ceiling (an unknown code: nothing found, nothing deleted) is measured too, for comparison.
 */
import { SETUP_REQUEST_TIMEOUT_MS } from '../api';
import { startPeer } from '../peer';
import { atMostRatio, combine, holds, type Measurement, ratio } from '../stats';
import type { LoadRequest, Scenario } from '../types';
import { redeemCeiling } from './ceilings';
import { createAuthApps, mintExchangeRequests } from './oauth-fixtures';

/** Apps whose codes the exchange redeems; as many again hold the ceiling's. */
const APPS = 8;
/** Codes per app, under the specification's 600 exchanges per app per 15 minutes. */
const PER_APP = 375;
/** Codes live 120 s: minting stops early enough that the last run still redeems live ones. */
const MINT_LIMIT_MS = 50_000;
/** Share of each side's codes spent warming it, unmeasured. */
const WARM_SHARE = 0.1;
/** Grants the peer serves before it is measured. */
const PEER_WARMUP = 6_000;
const PEER_CODES = PEER_WARMUP + 20_000;
/** The exchange's workerd CPU against its object call's. */
const CPU_SHARE = 1.3;
/** The exchange's p99 against the warm peer's. */
const P99_SHARE = 2;

/** The app a minted exchange request is for (its path is /v1/{app}/oauth/exchange). */
const appOf = (request: LoadRequest): string => request.path.split('/')[2] ?? '';

/** The exchange's requests and the ceiling's (the same kind of codes), equally many. */
function splitCodes(requests: LoadRequest[], ceilingApps: ReadonlySet<string>) {
  const ours = requests.filter((r) => !ceilingApps.has(appOf(r)));
  const ceiling = requests
    .filter((r) => ceilingApps.has(appOf(r)))
    .map((r) => ({ ...r, path: `/__bench/exchange-call/${appOf(r)}` }));
  const n = Math.min(ours.length, ceiling.length);
  return { ours: ours.slice(0, n), ceiling: ceiling.slice(0, n) };
}

/** Exchange vs its object call and vs oidc-provider. */
export const oauthExchangeScenario: Scenario<{ apps: string[] }> = {
  name: 'oauth exchange vs oidc-provider',
  issue: 5,
  target: `workerd CPU <= ${CPU_SHARE}x the object call's; p99 <= ${P99_SHARE}x the warm peer's`,
  requires: ['POST /api/v1/projects/{id}/auth-apps', 'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}'],
  async setup(ctx) {
    const apps = await createAuthApps(ctx.api, 2 * APPS, 'exchange');
    // One full sign-in and exchange first: proves the flow works before minting thousands.
    const [probe] = await mintExchangeRequests(ctx, apps.slice(0, 1), 1, 1, MINT_LIMIT_MS);
    if (!probe) throw new Error('could not mint a probe code');
    const res = await fetch(ctx.stack.authUrl + probe.path, {
      method: 'POST',
      headers: probe.headers,
      body: probe.body,
      signal: AbortSignal.timeout(SETUP_REQUEST_TIMEOUT_MS),
    });
    if (res.status !== 200)
      throw new Error(`probe exchange answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    return { apps };
  },
  async measure(ctx, { apps }) {
    const mintStart = Date.now();
    // The probe spent one of the first app's budget; stay one under per app.
    const minted = await mintExchangeRequests(ctx, apps, apps.length * PER_APP, PER_APP - 1, MINT_LIMIT_MS);
    const mintSec = (Date.now() - mintStart) / 1000;
    const { ours, ceiling } = splitCodes(minted, new Set(apps.slice(APPS)));
    const warm = Math.ceil(ours.length * WARM_SHARE);
    const half = warm + Math.floor((ours.length - warm) / 2);
    const run = (requests: LoadRequest[]) =>
      ctx.load({
        connections: ctx.settings.connections,
        mode: 'once',
        durationSec: ctx.settings.durationSec,
        requests,
        expectStatus: [200],
        keepSamples: true,
      });
    await run(ours.slice(0, warm));
    await run(ceiling.slice(0, warm));
    const oursA = await run(ours.slice(warm, half));
    const callA = await run(ceiling.slice(warm, half));
    const callB = await run(ceiling.slice(half));
    const oursB = await run(ours.slice(half));
    const measured = combine([oursA, oursB]);
    const call = combine([callA, callB]);
    const peer = await startPeer(PEER_CODES);
    let theirs: Awaited<ReturnType<typeof ctx.load>>;
    let peerWarmup: Awaited<ReturnType<typeof ctx.load>>;
    try {
      const spec = { url: peer.origin, connections: ctx.settings.connections, expectStatus: [200] };
      peerWarmup = await ctx.load({ ...spec, mode: 'once', requests: peer.requests.slice(0, PEER_WARMUP) });
      theirs = await ctx.load({
        ...spec,
        mode: 'once',
        durationSec: ctx.settings.durationSec,
        requests: peer.requests.slice(PEER_WARMUP),
        peerPid: peer.pid,
      });
    } finally {
      await peer.stop();
    }
    const unknownCode = await redeemCeiling(ctx, this.issue, theirs.rps);
    const ourCpu = measured.cpu?.workerd;
    const callCpu = call.cpu?.workerd;
    const peerCpu = theirs.cpu?.peer;
    const fmt = (v: number | null | undefined, digits = 2) =>
      v === null || v === undefined ? 'n/a' : v.toFixed(digits);
    const strip = ({ samples: _samples, ...m }: Measurement): Measurement => m;
    return [
      {
        scenario: 'oauth exchange',
        issue: this.issue,
        measurement: strip(measured),
        checks: [
          atMostRatio(ratio(ourCpu, callCpu), CPU_SHARE, "object call's workerd CPU"),
          atMostRatio(ratio(measured.latency.p99, theirs.latency.p99), P99_SHARE, 'warm peer p99'),
          holds('no errors', measured.errors === 0, String(measured.errors)),
        ],
        note:
          `${minted.length} codes minted by the browser flow in ${mintSec.toFixed(1)} s, ${ours.length} for each side (${warm} to warm it); against the warm peer: ` +
          `throughput ${fmt(ratio(measured.rps, theirs.rps))}x, CPU/request ${fmt(ourCpu, 3)} ms workerd vs ${fmt(peerCpu, 3)} ms peer ` +
          `(${fmt(ratio(ourCpu, peerCpu))}x); beyond its object call ${fmt(ourCpu !== undefined && callCpu !== undefined ? ourCpu - callCpu : undefined, 3)} ms`,
        details: { minted: minted.length, perSide: ours.length, warm, mintSec },
      },
      {
        scenario: "ceiling: the exchange's object call",
        issue: this.issue,
        measurement: strip(call),
        checks: [holds('no errors', call.errors === 0, String(call.errors))],
        note: `the exchange's own count-and-redeem of a live code minted alike, its record parsed; nothing else; ${fmt(ratio(call.rps, theirs.rps))}x the peer`,
      },
      {
        scenario: 'peer: oidc-provider token (code+PKCE), warm',
        issue: this.issue,
        measurement: theirs,
        checks: [holds('no errors', theirs.errors === 0, String(theirs.errors))],
        note: `oidc-provider in its own process, in-memory store, after ${PEER_WARMUP} grants (warm-up ${peerWarmup.rps.toFixed(0)} req/s, p99 ${peerWarmup.latency.p99.toFixed(1)} ms)`,
      },
      { ...unknownCode, scenario: "ceiling: object call, unknown code (earlier runs' ceiling)" },
    ];
  },
};
