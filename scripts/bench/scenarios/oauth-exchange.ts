/**
 * POST /v1/{app}/oauth/exchange against its one unavoidable step and against a peer, in one run:
 * workerd CPU per exchange <= 1.3x that of the exchange's Durable Object call alone
 * (the ceiling row: the exchange's own count-and-redeem of a live code, its record parsed), and
 * p99 <= 2x the p99 of oidc-provider's token endpoint redeeming authorization_code + PKCE codes
 * in its own process, warmed first with 6,000 grants (it halves its cost over the first 4,000).
 * Throughput and CPU per request against the warm peer are reported.
 *
 * Codes for every side are minted together by the browser flow, app by app in turn, so all
 * redeem records of the same size in objects of the same fill. Sides: the exchange; its
 * object call alone (the ceiling); its whole work (object call, verifier hash, refresh token
 * decrypted, access token signed) without the HTTP framework, which shows how much of the gap
 * is work the exchange cannot skip. Each side is warmed with a tenth of its codes, then
 * measured in two halves, the second in reverse order, so background load on the shared
 * machine falls on all alike. Every request goes once, from 10 connections of a load generator
 * in another process. The earlier ceiling (an unknown code: nothing found, nothing deleted) is
 * measured too, for comparison.
 */

import { startPeer } from '../peer';
import { SETUP_REQUEST_TIMEOUT_MS } from '../setup-client';
import { atMostRatio, combine, holds, type Measurement, ratio } from '../stats';
import type { LoadRequest, ResultRow, Scenario } from '../types';
import { redeemCeiling } from './ceilings';
import { createAuthApps, mintExchangeRequests } from './oauth-fixtures';

/** Apps whose codes the exchange redeems; as many again hold each ceiling's. */
const APPS = 8;
/** The exchange, its object call alone, its work without the HTTP framework. */
const SIDES = 3;
/** Codes per app, under the documented 600 exchanges per app per 15 minutes. */
const PER_APP = 250;
/** Codes live 120 s: minting stops early enough that the last run still redeems live ones. */
const MINT_LIMIT_MS = 60_000;
/** Share of each side's codes spent warming it, unmeasured. */
const WARM_SHARE = 0.1;
/** Grants the peer serves before it is measured. */
const PEER_WARMUP = 6_000;
const PEER_CODES = PEER_WARMUP + 20_000;
/** The exchange's workerd CPU against its object call's. */
const CPU_SHARE = 1.3;
/** The exchange's workerd CPU per request against the warm peer's process CPU per request. */
const PEER_CPU_SHARE = 0.9;
/** The exchange's p99 against the warm peer's. */
const P99_SHARE = 1.5;

/** The app a minted exchange request is for (its path is /v1/{app}/oauth/exchange). */
const appOf = (request: LoadRequest): string => request.path.split('/')[2] ?? '';

/**
 * The minted requests split by app into the exchange's and each ceiling's (`/__bench/<route>/`
 * of bench-entry.ts), equally many: app i of `apps` serves side i % (1 + ceilings).
 */
function splitCodes(requests: LoadRequest[], apps: readonly string[], ceilings: readonly string[]) {
  const sides = 1 + ceilings.length;
  const sideOf = new Map(apps.map((app, i) => [app, i % sides]));
  const groups = Array.from({ length: sides }, (_, side) =>
    requests
      .filter((r) => sideOf.get(appOf(r)) === side)
      .map((r) => (side === 0 ? r : { ...r, path: `/__bench/${ceilings[side - 1]}/${appOf(r)}` })),
  );
  const n = Math.min(...groups.map((g) => g.length));
  return groups.map((g) => g.slice(0, n));
}

/** Exchange vs its object call and vs oidc-provider. */
export const oauthExchangeScenario: Scenario<{ apps: string[] }> = {
  name: 'oauth exchange vs oidc-provider',
  issue: 5,
  target: `workerd CPU <= ${CPU_SHARE}x the object call's and <= ${PEER_CPU_SHARE}x the warm peer's CPU; p99 <= ${P99_SHARE}x the warm peer's`,
  requires: ['POST /api/v1/projects/{id}/auth-apps', 'PATCH /api/v1/projects/{id}/auth-apps/{authAppId}'],
  async setup(ctx) {
    const apps = await createAuthApps(ctx.api, SIDES * APPS, 'exchange');
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
    // The peer mints its codes (they live 600 s) before ours, so it is ready to alternate with them.
    const peer = await startPeer(PEER_CODES);
    try {
      // The peer is warmed first: our codes live 120 s and must not wait for it.
      const peerWarmup = await ctx.load({
        url: peer.origin,
        connections: ctx.settings.connections,
        mode: 'once',
        requests: peer.requests.slice(0, PEER_WARMUP),
        expectStatus: [200],
      });
      const mintStart = Date.now();
      // The probe spent one of the first app's budget; stay one under per app.
      const minted = await mintExchangeRequests(ctx, apps, apps.length * PER_APP, PER_APP - 1, MINT_LIMIT_MS);
      const mintSec = (Date.now() - mintStart) / 1000;
      const [ours = [], call = [], work = []] = splitCodes(minted, apps, ['exchange-call', 'exchange-work']);
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
      const peerRequests = peer.requests.slice(PEER_WARMUP);
      const peerHalf = Math.floor(peerRequests.length / 2);
      const runPeer = (requests: LoadRequest[]) =>
        ctx.load({
          url: peer.origin,
          connections: ctx.settings.connections,
          mode: 'once',
          durationSec: ctx.settings.durationSec / 2,
          requests,
          expectStatus: [200],
          keepSamples: true,
          peerPid: peer.pid,
        });
      for (const side of [ours, call, work]) await run(side.slice(0, warm));
      // Two halves of each side, the second in the reverse order, so a trend in the machine's
      // load falls on all four alike.
      const oursA = await run(ours.slice(warm, half));
      const callA = await run(call.slice(warm, half));
      const workA = await run(work.slice(warm, half));
      const peerA = await runPeer(peerRequests.slice(0, peerHalf));
      const peerB = await runPeer(peerRequests.slice(peerHalf));
      const workB = await run(work.slice(half));
      const callB = await run(call.slice(half));
      const oursB = await run(ours.slice(half));
      return rowsOf(this.issue, {
        minted: minted.length,
        mintSec,
        perSide: ours.length,
        warm,
        ours: combine([oursA, oursB]),
        call: combine([callA, callB]),
        work: combine([workA, workB]),
        theirs: combine([peerA, peerB]),
        peerWarmup,
        unknownCode: await redeemCeiling(ctx, this.issue, peerA.rps),
      });
    } finally {
      await peer.stop();
    }
  },
};

/** The scenario's rows from what it measured. */
function rowsOf(
  issue: number,
  m: {
    minted: number;
    mintSec: number;
    perSide: number;
    warm: number;
    ours: Measurement;
    call: Measurement;
    work: Measurement;
    theirs: Measurement;
    peerWarmup: Measurement;
    unknownCode: ResultRow;
  },
): ResultRow[] {
  const { minted, mintSec, warm, unknownCode } = m;
  const strip = ({ samples: _samples, ...rest }: Measurement): Measurement => rest;
  const [measured, callM, workM, theirs] = [strip(m.ours), strip(m.call), strip(m.work), strip(m.theirs)];
  const ourCpu = measured.cpu?.workerd;
  const callCpu = callM.cpu?.workerd;
  const workCpu = workM.cpu?.workerd;
  const peerCpu = theirs.cpu?.peer;
  const fmt = (v: number | null | undefined, digits = 2) =>
    v === null || v === undefined ? 'n/a' : v.toFixed(digits);
  return [
    {
      scenario: 'oauth exchange',
      issue,
      measurement: measured,
      checks: [
        atMostRatio(ratio(ourCpu, callCpu), CPU_SHARE, "object call's workerd CPU"),
        atMostRatio(ratio(ourCpu, peerCpu), PEER_CPU_SHARE, "warm peer's CPU per request"),
        atMostRatio(ratio(measured.latency.p99, theirs.latency.p99), P99_SHARE, 'warm peer p99'),
        holds('no errors', measured.errors === 0, String(measured.errors)),
      ],
      note:
        `${minted} codes minted by the browser flow in ${mintSec.toFixed(1)} s, ${m.perSide} for each of 3 sides (${warm} to warm it); against the warm peer: ` +
        `throughput ${fmt(ratio(measured.rps, theirs.rps))}x, CPU/request ${fmt(ourCpu, 3)} ms workerd vs ${fmt(peerCpu, 3)} ms peer ` +
        `(${fmt(ratio(ourCpu, peerCpu))}x); beyond its object call ${fmt(ourCpu !== undefined && callCpu !== undefined ? ourCpu - callCpu : undefined, 3)} ms`,
      details: { minted, perSide: m.perSide, warm, mintSec },
    },
    {
      scenario: "ceiling: the exchange's object call",
      issue,
      measurement: callM,
      checks: [holds('no errors', callM.errors === 0, String(callM.errors))],
      note: `the exchange's own count-and-redeem of a live code minted alike, its record parsed; nothing else; ${fmt(ratio(callM.rps, theirs.rps))}x the peer`,
    },
    {
      scenario: "ceiling: the exchange's work, no framework",
      issue,
      measurement: workM,
      checks: [holds('no errors', workM.errors === 0, String(workM.errors))],
      note: `the object call, then the route's own exchangeCode (verifier hash, refresh token decrypted, access token signed), as JSON: ${fmt(ratio(workCpu, callCpu))}x the object call's workerd CPU; the exchange is ${fmt(ratio(ourCpu, workCpu))}x this`,
    },
    {
      scenario: 'peer: oidc-provider token (code+PKCE), warm',
      issue,
      measurement: theirs,
      checks: [holds('no errors', theirs.errors === 0, String(theirs.errors))],
      note: `oidc-provider in its own process, in-memory store, after ${PEER_WARMUP} grants (warm-up ${m.peerWarmup.rps.toFixed(0)} req/s, p99 ${m.peerWarmup.latency.p99.toFixed(1)} ms), measured in two halves between ours`,
    },
    { ...unknownCode, scenario: "ceiling: object call, unknown code (earlier runs' ceiling)" },
  ];
}
