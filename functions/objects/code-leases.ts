/**
 * The app-wide exchange window leased to regional code objects (docs/operations.md, "Codes near
 * the user"), kept in a OneTimeCodes object's SQLite storage. The app's home object keeps the
 * ledger (what it has granted of the current window) and the regions it has granted to; a
 * regional object keeps its lease (units of one window) and spends a unit per live code
 * redeemed. The accounting is domain/window-lease.ts; every function here runs synchronously
 * inside one object call, so the ledger never grants more than the window's limit.
 */

import {
  addGrant,
  type Grant,
  grantBlock,
  LEASE_BLOCK,
  type Lease,
  spendUnit,
  unitsLeft,
  wantsBlock,
  windowSpent,
} from '../domain/window-lease';
import type { RateDecision } from './fixed-window';

/** A block as the home forwards it to a region registering with it (the `blocks` table's row). */
export type BlockRow = {
  subject: string;
  reason: string;
  expires_at: number | null;
  issued_before: number | null;
};

/** What the home answers a region asking for units: the grant, and the blocks it holds now. */
export interface LeaseAnswer {
  grant: Grant;
  blocks: BlockRow[];
}

/** What a regional object needs to ask the app's home for units: the home's name, its own region, the window. */
export interface LeaseTerms {
  home: string;
  region: string;
  windowMs: number;
  limit: number;
}

/** The app's home object, as a region calls it. */
export interface LeaseHome {
  leaseTo(
    region: string,
    want: number,
    windowMs: number,
    limit: number,
    now: number,
  ): Promise<LeaseAnswer> | LeaseAnswer;
}

/** How often an exchange asks the home for units before it is refused for a second. */
const LEASE_TRIES = 3;

/** A refusal until `until`. */
const refusalUntil = (until: number, now: number): RateDecision => ({
  allowed: false,
  remaining: 0,
  retryAfter: Math.max(1, Math.ceil((until - now) / 1000)),
});

/**
 * A regional object's side of the lease: it asks the app's home for blocks, one ask at a time
 * (concurrent needs share it, so a burst of sign-ins in a region takes one block).
 */
export class LeaseKeeper {
  private asking: Promise<void> | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly homeNamed: (name: string) => LeaseHome,
  ) {}

  private askHome(terms: LeaseTerms, now: number): Promise<void> {
    this.asking ??= (async () => {
      const home = this.homeNamed(terms.home);
      const answer = await home.leaseTo(terms.region, LEASE_BLOCK, terms.windowMs, terms.limit, now);
      takeLease(this.sql, answer, now);
    })().finally(() => {
      this.asking = null;
    });
    return this.asking;
  }

  /**
   * Before a code is stored: registers the region with the home (its first lease brings the
   * home's blocks, so every block reaches the code), or asks for a block when the lease would
   * not cover the `outstanding` codes plus this one. Only the registration must succeed.
   */
  async beforeIssue(terms: LeaseTerms, now: number, outstanding: number): Promise<void> {
    const lease = readLease(this.sql);
    if (lease === null) await this.askHome(terms, now);
    else if (wantsBlock(lease, now, outstanding)) await this.askHome(terms, now).catch(() => undefined);
  }

  /**
   * Before a code is redeemed: whether `live()` finds a live code and, if so, the lease holding
   * a unit for it; or the refusal: the window spent, or no unit after asking the home. Nothing
   * awaits between the answer and the caller's next step, so the unit found is still there.
   */
  async unitFor(
    live: () => boolean,
    terms: LeaseTerms,
    now: number,
  ): Promise<{ refused: RateDecision } | { live: false } | { live: true; lease: Lease }> {
    for (let tries = 0; ; tries++) {
      if (!live()) return { live: false };
      const lease = readLease(this.sql);
      if (lease !== null && unitsLeft(lease, now) > 0) return { live: true, lease };
      if (lease !== null && windowSpent(lease, now)) return { refused: refusalUntil(lease.resetsAt, now) };
      if (tries === LEASE_TRIES) return { refused: refusalUntil(now + 1000, now) };
      const asked = await this.askHome(terms, now).then(
        () => true,
        () => false,
      );
      if (!asked) return { refused: refusalUntil(now + 1000, now) };
    }
  }
}

/** Creates the ledger's and the lease's tables if the object has none yet. */
export function createLeaseTables(sql: SqlStorage): void {
  sql.exec(
    'CREATE TABLE IF NOT EXISTS lease_ledger (id INTEGER PRIMARY KEY CHECK (id = 1), resets_at INTEGER NOT NULL, granted INTEGER NOT NULL)',
  );
  sql.exec('CREATE TABLE IF NOT EXISTS lease_regions (region TEXT PRIMARY KEY)');
  // A regional object's lease; its row, once written, also says the home knows the region.
  sql.exec(
    'CREATE TABLE IF NOT EXISTS lease (id INTEGER PRIMARY KEY CHECK (id = 1), resets_at INTEGER NOT NULL, units INTEGER NOT NULL, spent INTEGER NOT NULL)',
  );
}

/**
 * At the home: grants `region` up to `want` units of the current window (never past `limit`),
 * records the region so blocks are forwarded to it, and answers with the blocks held now, so
 * a region registering while a block is set misses none.
 */
export function grantLease(
  sql: SqlStorage,
  input: { region: string; want: number; windowMs: number; limit: number; now: number },
): LeaseAnswer {
  const row = sql
    .exec<{ resets_at: number; granted: number }>('SELECT resets_at, granted FROM lease_ledger')
    .toArray()[0];
  const { window, grant } = grantBlock(row ? { resetsAt: row.resets_at, granted: row.granted } : null, input);
  sql.exec(
    'INSERT OR REPLACE INTO lease_ledger (id, resets_at, granted) VALUES (1, ?, ?)',
    window.resetsAt,
    window.granted,
  );
  sql.exec('INSERT OR IGNORE INTO lease_regions (region) VALUES (?)', input.region);
  const blocks = sql
    .exec<BlockRow>(
      'SELECT subject, reason, expires_at, issued_before FROM blocks WHERE expires_at IS NULL OR expires_at > ?',
      input.now,
    )
    .toArray();
  return { grant, blocks };
}

/** At the home: the regions it has granted to, which every block must reach. */
export const leasedRegions = (sql: SqlStorage): string[] =>
  sql
    .exec<{ region: string }>('SELECT region FROM lease_regions ORDER BY region')
    .toArray()
    .map((r) => r.region);

/** A regional object's lease, or null before the home first granted to it. */
export function readLease(sql: SqlStorage): Lease | null {
  const row = sql
    .exec<{ resets_at: number; units: number; spent: number }>('SELECT resets_at, units, spent FROM lease')
    .toArray()[0];
  return row ? { resetsAt: row.resets_at, units: row.units, spent: row.spent === 1 } : null;
}

function writeLease(sql: SqlStorage, lease: Lease): void {
  sql.exec(
    'INSERT OR REPLACE INTO lease (id, resets_at, units, spent) VALUES (1, ?, ?, ?)',
    lease.resetsAt,
    lease.units,
    lease.spent ? 1 : 0,
  );
}

/**
 * In a region: adds the home's answer to the lease. The first answer registers the region (its
 * lease row) and brings the home's blocks; a block the region already holds is kept as it is.
 */
export function takeLease(sql: SqlStorage, answer: LeaseAnswer, now: number): void {
  for (const b of answer.blocks) {
    sql.exec(
      'INSERT OR IGNORE INTO blocks (subject, reason, expires_at, issued_before) VALUES (?, ?, ?, ?)',
      b.subject,
      b.reason,
      b.expires_at,
      b.issued_before,
    );
  }
  writeLease(sql, addGrant(readLease(sql), answer.grant, now));
}

/** In a region: spends one unit of `lease` (read in this step, with a unit left) for a live code redeemed. */
export function spendLeaseUnit(sql: SqlStorage, lease: Lease, now: number): void {
  const spent = spendUnit(lease, now);
  if (spent.spent && spent.lease) writeLease(sql, spent.lease);
}
