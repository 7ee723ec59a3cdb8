/**
 * One-time codes kept near the user (docs/operations.md, "Codes near the user"). The browser
 * callback mints a code in the app's object of the caller's region (`codes:<app>:<region>`,
 * created with that location hint), and the code's first character names the region, so the
 * app's exchange redeems it there. The app's window (600 exchanges per 15 minutes) is leased
 * to the regions in blocks by the app's home object (`codes:<app>`), which never grants more
 * than the window holds; a region asks for a block when it mints, so an exchange finds its unit
 * waiting and pays no trip between regions. Blocks set on a user or the app are set at the home
 * and forwarded to every region it has leased to before the change answers; a region registers
 * with the home (and copies its blocks) before it stores its first code.
 */
import type { CodeScope, CodeStore } from '../../adapters/code-store';
import { isRegion, markedFor, type Region, regionOfCode } from '../../domain/regions';
import { randomToken } from '../../lib/ids';
import type { RateCheck, RateDecision } from '../../objects/fixed-window';
import type { LeaseTerms } from '../../objects/one-time-codes-object';
import {
  CODE_TTL_MS,
  type CodeBlock,
  type CodeRecord,
  type CodesContext,
  hashOf,
  type TakenCode,
} from './one-time-codes';
import { RATE_LIMITS, RATE_WINDOW_MS } from './rate-limit';

/** The subject that stands for every code of an app (OneTimeCodes' EVERY_SUBJECT). */
const EVERY_SUBJECT = '*';

/** The app's home object: its window's ledger, the regions it leased to, and every block. */
const HOME = (slug: string) => `codes:${slug}`;

/** The app's home object, by name. */
const homeOf = (codes: CodeStore, slug: string): CodeScope => codes.scope(HOME(slug));

/** The app's object in `region`, created there: its codes, client windows and lease. */
const regionalOf = (codes: CodeStore, slug: string, region: Region): CodeScope =>
  codes.scope(`codes:${slug}:${region}`, region);

/** What a region's object needs to lease units of the app's window from its home. */
const termsOf = (slug: string, region: Region): LeaseTerms => ({
  home: HOME(slug),
  region,
  windowMs: RATE_WINDOW_MS,
  limit: RATE_LIMITS.exchange.app,
});

/**
 * Issues a one-time code for 120 seconds in the object of `region` (where the browser callback
 * arrived); that object registers with the app's home before its first code and tops its lease
 * up while the callback waits, so the exchange finds its unit there.
 */
export async function issueCode(
  ctx: CodesContext,
  { slug, record, region }: { slug: string; record: CodeRecord; region: Region },
): Promise<string> {
  const secret = markedFor(region, randomToken(32));
  const hash = (await hashOf(secret)) as string;
  await regionalOf(ctx.codes, slug, region).issueNear(
    hash,
    JSON.stringify(record),
    CODE_TTL_MS,
    record.userId,
    termsOf(slug, region),
  );
  return secret;
}

/** Counts `checks` in `region`'s object and redeems `hash` there on a unit of the app's window. */
const redeemIn = (
  ctx: CodesContext,
  { slug, region, checks, hash }: { slug: string; region: Region; checks: RateCheck[]; hash: string | null },
) => regionalOf(ctx.codes, slug, region).redeemNear(checks, RATE_WINDOW_MS, hash, termsOf(slug, region));

/**
 * Counts one exchange request against `checks` (the client's window, in the object of the
 * request's `region`) and, when allowed and `code` is live, spends a unit of the app's window
 * and takes the code, where it was minted: one object call when the code was minted where the
 * request comes from (the same person, the same place), two otherwise. Burnt either way; a
 * refused request burns nothing.
 */
export async function countAndRedeemCode(
  ctx: CodesContext,
  input: { slug: string; checks: RateCheck[]; code: string | null; region: Region },
): Promise<{ decision: RateDecision; taken: TakenCode | null }> {
  const { slug, checks, code, region } = input;
  const hash = code === null ? null : await hashOf(code);
  const minted = code === null || hash === null ? null : regionOfCode(code);
  let answer: Awaited<ReturnType<typeof redeemIn>>;
  if (minted === null) {
    answer = await redeemIn(ctx, { slug, region, checks, hash: null });
  } else if (minted === region || checks.length === 0) {
    answer = await redeemIn(ctx, { slug, region: minted, checks, hash });
  } else {
    const counted = await redeemIn(ctx, { slug, region, checks, hash: null });
    answer = counted.decision.allowed
      ? await redeemIn(ctx, { slug, region: minted, checks: [], hash })
      : counted;
  }
  const { decision, redeemed } = answer;
  const taken =
    redeemed === null
      ? null
      : { record: JSON.parse(redeemed.value) as CodeRecord, block: redeemed.block as CodeBlock | null };
  return { decision, taken };
}

/** Applies a block change at the app's home, then in every region the home has leased to. */
async function everywhere(
  ctx: CodesContext,
  slug: string,
  change: (scope: CodeScope) => Promise<string[]>,
): Promise<void> {
  const regions = await change(homeOf(ctx.codes, slug));
  await Promise.all(regions.filter(isRegion).map((r) => change(regionalOf(ctx.codes, slug, r))));
}

/**
 * Blocks redeeming the codes of a user (or, with no user, of the whole app), for `ttlMs` or
 * until unblocked. Outstanding codes are refused from then on, in every region.
 */
export async function blockCodes(
  ctx: CodesContext,
  input: { slug: string; userId: string | null; reason: CodeBlock; ttlMs?: number | null },
): Promise<void> {
  const { slug, userId, reason, ttlMs = null } = input;
  await everywhere(ctx, slug, (scope) => scope.block(userId ?? EVERY_SUBJECT, reason, ttlMs));
}

/** Lifts a block set by {@link blockCodes}. */
export async function unblockCodes(
  ctx: CodesContext,
  { slug, userId }: { slug: string; userId: string | null },
): Promise<void> {
  await everywhere(ctx, slug, (scope) => scope.unblock(userId ?? EVERY_SUBJECT));
}

/**
 * Lets a re-enabled user's new codes through. Codes issued while the user was enabled before
 * carry refresh tokens the disable revoked, so they stay refused (invalid_grant) until they
 * expire: a client never gets a session whose refresh token is already dead.
 */
export async function unblockNewCodes(
  ctx: CodesContext,
  { slug, userId }: { slug: string; userId: string },
): Promise<void> {
  await everywhere(ctx, slug, (scope) => scope.liftForNewRecords(userId, 'disabled', 'revoked', CODE_TTL_MS));
}
