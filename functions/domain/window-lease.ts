/**
 * The app-wide exchange window leased to regions in blocks (docs/operations.md, "Codes near the
 * user"). The app's home ledger hands out units of its fixed window (600 exchanges per 15
 * minutes) to regional code objects; a region spends its units on exchanges without asking the
 * home, and asks for another block only when it runs low. A unit is valid only inside the
 * window it was granted in, and the ledger never grants more than the window's limit, so the
 * exchanges of every region together never exceed it, whatever the regions do; what a region
 * loses (its object gone mid-lease) is under-admission, never over. Pure: the objects keep the
 * state and call these in one synchronous step each.
 */

/** The units a region asks the home for at a time (fewer are granted as the window fills). */
export const LEASE_BLOCK = 30;

/** The home ledger's count of one fixed window: what it has granted so far and when it ends. */
export interface LedgerWindow {
  resetsAt: number;
  granted: number;
}

/** Units of one window granted to a region (0 when the window is spent), and when they lapse. */
export interface Grant {
  units: number;
  resetsAt: number;
}

/** A region's units of one window left to spend; `spent` once the home had none left to grant. */
export interface Lease {
  resetsAt: number;
  units: number;
  spent?: boolean;
}

/**
 * The block a region is granted when it asks for `want`: never past the window's limit, and
 * smaller as the window fills (a quarter of what is left, at least one), so the last units are
 * not stranded in one region while another needs them.
 */
export function grantBlock(
  window: LedgerWindow | null,
  { now, windowMs, limit, want }: { now: number; windowMs: number; limit: number; want: number },
): { window: LedgerWindow; grant: Grant } {
  const live = window !== null && window.resetsAt > now ? window : { resetsAt: now + windowMs, granted: 0 };
  const left = limit - live.granted;
  const units = Math.max(0, Math.min(want, left, Math.max(1, Math.ceil(left / 4))));
  return {
    window: { resetsAt: live.resetsAt, granted: live.granted + units },
    grant: { units, resetsAt: live.resetsAt },
  };
}

/** The lease after `grant` is added: units of a lapsed window are dropped, never carried over. */
export function addGrant(lease: Lease | null, grant: Grant, now: number): Lease {
  const held = lease !== null && lease.resetsAt === grant.resetsAt && lease.resetsAt > now ? lease.units : 0;
  return { resetsAt: grant.resetsAt, units: held + grant.units, spent: grant.units === 0 };
}

/** Units the lease can still spend at `now` (0 once its window ended). */
export const unitsLeft = (lease: Lease | null, now: number): number =>
  lease !== null && lease.resetsAt > now ? lease.units : 0;

/** Spends one unit of the lease: `spent` is false when none is left (the region must ask the home). */
export function spendUnit(lease: Lease | null, now: number): { lease: Lease | null; spent: boolean } {
  if (lease === null || unitsLeft(lease, now) === 0) return { lease, spent: false };
  return { lease: { ...lease, units: lease.units - 1 }, spent: true };
}

/** Whether the home said the lease's window is spent (then nobody asks again before it ends). */
export const windowSpent = (lease: Lease | null, now: number): boolean =>
  lease?.spent === true && lease.resetsAt > now;

/**
 * Whether a region should ask for a block now, off the exchange's path (when it mints a code):
 * when what it holds would not cover the codes it has outstanding plus one, unless the window
 * is spent.
 */
export const wantsBlock = (lease: Lease | null, now: number, outstandingCodes: number): boolean =>
  !windowSpent(lease, now) && unitsLeft(lease, now) <= outstandingCodes;
