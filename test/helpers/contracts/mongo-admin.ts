/**
 * The MongoAdmin contract: users made, changed and dropped through the admin API, observed
 * through its listing and, where the implementation offers one, a login.
 */
import { expect, it } from 'vitest';
import type { MongoAdmin } from '../../../functions/adapters/mongodb-admin';
import { randomLowerAlnum, randomPassword } from '../../../functions/lib/ids';

/** A MongoAdmin, a database name, and how a login is judged (absent where none can be tried). */
export interface MongoHarness {
  admin: MongoAdmin;
  database: string;
  /** Whether `username` can sign in with `password` now; undefined when no login can be tried here. */
  authenticates?: (username: string, password: string) => Promise<boolean>;
}

const newUser = () => ({ username: `c_${randomLowerAlnum(8)}`, password: randomPassword() });

async function listed(h: MongoHarness, username: string) {
  return (await h.admin.listUsers()).find((u) => u.username === username);
}

export function mongoAdminCases(get: () => MongoHarness): void {
  it('a created user is listed on its one database and signs in', async () => {
    const h = get();
    const u = newUser();
    await h.admin.createUser(h.database, u.username, u.password, 'connect');
    expect((await listed(h, u.username))?.databases).toEqual([h.database]);
    if (h.authenticates) expect(await h.authenticates(u.username, u.password)).toBe(true);
    await h.admin.dropUser(u.username);
  });

  it('creating a user whose name is taken is refused, and the first keeps its password', async () => {
    const h = get();
    const u = newUser();
    await h.admin.createUser(h.database, u.username, u.password, 'connect');
    await expect(h.admin.createUser(h.database, u.username, randomPassword(), 'connect')).rejects.toThrow();
    if (h.authenticates) expect(await h.authenticates(u.username, u.password)).toBe(true);
    await h.admin.dropUser(u.username);
  });

  it('a dropped user is gone and refused; dropping it again is a no-op', async () => {
    const h = get();
    const u = newUser();
    await h.admin.createUser(h.database, u.username, u.password, 'read-only');
    await h.admin.dropUser(u.username);
    expect(await listed(h, u.username)).toBeUndefined();
    if (h.authenticates) expect(await h.authenticates(u.username, u.password)).toBe(false);
    await expect(h.admin.dropUser(u.username)).resolves.toBeUndefined();
  });

  it('a new password signs in and the old one is refused', async () => {
    const h = get();
    const u = newUser();
    await h.admin.createUser(h.database, u.username, u.password, 'connect');
    const password = randomPassword();
    await h.admin.setUserPassword(u.username, password);
    if (h.authenticates) {
      expect(await h.authenticates(u.username, password)).toBe(true);
      expect(await h.authenticates(u.username, u.password)).toBe(false);
    }
    expect(await listed(h, u.username)).toBeDefined();
    await h.admin.dropUser(u.username);
  });

  it('a level change keeps the user on the same database with the same password', async () => {
    const h = get();
    const u = newUser();
    await h.admin.createUser(h.database, u.username, u.password, 'read-only');
    await h.admin.setUserLevel(h.database, u.username, 'connect');
    expect((await listed(h, u.username))?.databases).toEqual([h.database]);
    if (h.authenticates) expect(await h.authenticates(u.username, u.password)).toBe(true);
    await h.admin.dropUser(u.username);
  });

  it('a user it created is listed with its creation time', async () => {
    const h = get();
    const u = newUser();
    const before = Date.now();
    await h.admin.createUser(h.database, u.username, u.password, 'connect');
    const at = (await listed(h, u.username))?.createdAt?.getTime() ?? 0;
    expect(at).toBeGreaterThanOrEqual(before - 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 60_000);
    await h.admin.dropUser(u.username);
  });
}
