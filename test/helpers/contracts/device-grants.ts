/**
 * The device grants a CodeStore scope keeps for `tether login --device` (RFC 8628), as the
 * routes rely on them: a grant expires with its lifetime, is taken by exactly one poll once
 * decided, a user code names one live grant at a time, and wrong codes are counted until every
 * try is refused.
 */
import { expect, it } from 'vitest';
import type { CodeStore } from '../../../functions/adapters/code-store';
import { randomLowerAlnum } from '../../../functions/lib/ids';
import { eventually } from '../eventually';

const scopeName = () => `contract-device:${randomLowerAlnum(8)}`;
const MINUTE = 60_000;
const grant = (ttlMs = MINUTE) => ({
  deviceHash: `d-${randomLowerAlnum(8)}`,
  userHash: `u-${randomLowerAlnum(8)}`,
  name: 'laptop',
  ttlMs,
  intervalS: 5,
});
const client = [{ key: 'client', limit: 1000 }];

export function deviceGrantCases(get: () => CodeStore): void {
  it('a grant no one decides expires with its lifetime: polls then answer expired', async () => {
    const scope = get().scope(scopeName());
    const g = grant(300);
    expect((await scope.startDeviceGrant(g, client, MINUTE)).started).toBe(true);
    expect((await scope.pollDeviceGrant(g.deviceHash, client, MINUTE)).status).toBe('pending');
    await eventually(
      () => scope.pollDeviceGrant(g.deviceHash, client, MINUTE),
      (poll) => poll.status === 'expired',
      5_000,
      'the grant expiring',
    );
    // Nor can it be approved any more.
    const late = await scope.decideDeviceGrant(g.userHash, 'acc-1', [{ key: 'tries', limit: 10 }], MINUTE);
    expect(late.found).toBe(false);
  });

  it('an approved grant is taken by exactly one of ten polls at once', async () => {
    const scope = get().scope(scopeName());
    const g = grant();
    await scope.startDeviceGrant(g, client, MINUTE);
    expect(await scope.decideDeviceGrant(g.userHash, 'acc-1', [{ key: 'tries', limit: 10 }], MINUTE)).toEqual(
      {
        found: true,
        name: 'laptop',
      },
    );
    const polls = await Promise.all(
      Array.from({ length: 10 }, () => scope.pollDeviceGrant(g.deviceHash, client, MINUTE)),
    );
    expect(polls.filter((p) => p.status === 'approved')).toEqual([
      { status: 'approved', accountId: 'acc-1', name: 'laptop' },
    ]);
    expect(polls.filter((p) => p.status === 'expired')).toHaveLength(9);
  });

  it('a decided grant cannot be decided again, and a user code names one live grant', async () => {
    const scope = get().scope(scopeName());
    const g = grant();
    await scope.startDeviceGrant(g, client, MINUTE);
    expect((await scope.startDeviceGrant({ ...grant(), userHash: g.userHash }, client, MINUTE)).started).toBe(
      false,
    );
    const tries = [{ key: 'tries', limit: 10 }];
    expect((await scope.decideDeviceGrant(g.userHash, null, tries, MINUTE)).found).toBe(true);
    expect((await scope.decideDeviceGrant(g.userHash, 'acc-2', tries, MINUTE)).found).toBe(false);
    expect((await scope.pollDeviceGrant(g.deviceHash, client, MINUTE)).status).toBe('denied');
  });

  it('wrong codes count until the window is spent; then even the right code is refused', async () => {
    const scope = get().scope(scopeName());
    const g = grant();
    await scope.startDeviceGrant(g, client, MINUTE);
    const tries = [{ key: 'tries:person', limit: 3 }];
    for (let i = 0; i < 3; i++) {
      const wrong = await scope.decideDeviceGrant(`wrong-${i}`, 'acc-1', tries, MINUTE);
      expect(wrong).toMatchObject({ found: false, decision: { allowed: true } });
    }
    const refused = await scope.decideDeviceGrant(g.userHash, 'acc-1', tries, MINUTE);
    expect(refused).toMatchObject({ found: false, limited: { allowed: false } });
    expect((await scope.pollDeviceGrant(g.deviceHash, client, MINUTE)).status).toBe('pending');
  });
}
