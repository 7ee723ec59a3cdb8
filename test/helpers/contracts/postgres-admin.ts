/** The PostgresAdmin contract: what the services rely on, observed by logging in as an app would. */
import { expect, it } from 'vitest';
import type { PostgresAdmin } from '../../../functions/adapters/postgres-admin-interface';
import { randomLowerAlnum, randomPassword } from '../../../functions/lib/ids';
import { canLogin, loginAs, sqlState } from '../pg-login';

/** A PostgresAdmin with one database made through it, whose main user may create tables. */
export interface PostgresHarness {
  admin: PostgresAdmin;
  db: string;
  main: { name: string; password: string };
}

/** The SQLSTATE of `statement` run as `login` on the harness's database, or null when it ran. */
async function outcome(h: PostgresHarness, login: { name: string; password: string }, statement: string) {
  const client = await loginAs(h.db, login.name, login.password);
  try {
    return await sqlState(client, statement);
  } finally {
    await client.end();
  }
}

export function postgresAdminCases(get: () => PostgresHarness): void {
  it('a created login logs in to its database; once dropped it is refused', async () => {
    const h = get();
    const login = await h.admin.createLogin(h.db, 'connect', true);
    expect(login.name).toMatch(/^c_[a-z0-9]{8}$/);
    expect(await canLogin(h.db, login.name, login.password)).toBe(true);
    await h.admin.dropLogin(h.db, login.name);
    expect(await canLogin(h.db, login.name, login.password)).toBe(false);
  });

  it('dropping a login that does not exist is a no-op', async () => {
    const h = get();
    await expect(h.admin.dropLogin(h.db, 'c_00000000')).resolves.toBeUndefined();
  });

  it('a fixed login is re-created with that exact name and password; re-creating a live one is refused', async () => {
    const h = get();
    const fixed = { name: `c_${randomLowerAlnum(8)}`, password: randomPassword() };
    expect(await h.admin.createLogin(h.db, 'connect', true, fixed)).toEqual(fixed);
    await expect(h.admin.createLogin(h.db, 'connect', true, fixed)).rejects.toThrow();
    expect(await canLogin(h.db, fixed.name, fixed.password)).toBe(true);
    await h.admin.dropLogin(h.db, fixed.name);
    expect(await h.admin.createLogin(h.db, 'read-only', true, fixed)).toEqual(fixed);
    expect(await canLogin(h.db, fixed.name, fixed.password)).toBe(true);
  });

  it('read-only may SELECT, not INSERT; moved to connect it may INSERT with the same name and password', async () => {
    const h = get();
    const table = `t_${Date.now()}`;
    expect(await outcome(h, h.main, `CREATE TABLE ${table} (x int)`)).toBeNull();
    const login = await h.admin.createLogin(h.db, 'read-only', true);
    expect(await outcome(h, login, `SELECT * FROM ${table}`)).toBeNull();
    expect(await outcome(h, login, `INSERT INTO ${table} VALUES (1)`)).toBe('42501');
    await h.admin.setLoginLevel(h.db, login.name, 'connect', true);
    expect(await outcome(h, login, `INSERT INTO ${table} VALUES (1)`)).toBeNull();
    await h.admin.setLoginLevel(h.db, login.name, 'read-only', true);
    expect(await outcome(h, login, `INSERT INTO ${table} VALUES (2)`)).toBe('42501');
  });

  it('a new password logs in and the old one is refused', async () => {
    const h = get();
    const login = await h.admin.createLogin(h.db, 'connect', true);
    const password = randomPassword();
    await h.admin.setLoginPassword(h.db, login.name, password);
    expect(await canLogin(h.db, login.name, password)).toBe(true);
    expect(await canLogin(h.db, login.name, login.password)).toBe(false);
  });

  it('lists a login it made with the groups of its database', async () => {
    const h = get();
    const login = await h.admin.createLogin(h.db, 'connect', true);
    const listed = (await h.admin.listLogins()).find((l) => l.name === login.name);
    expect(listed?.groups).toContain(`${h.db}_rw`);
  });

  it('a stopped database refuses every login; started again it accepts them', async () => {
    const h = get();
    const login = await h.admin.createLogin(h.db, 'connect', true);
    await h.admin.setRunning(h.db, false);
    expect(await canLogin(h.db, login.name, login.password)).toBe(false);
    expect(await canLogin(h.db, h.main.name, h.main.password)).toBe(false);
    await h.admin.setRunning(h.db, true);
    expect(await canLogin(h.db, login.name, login.password)).toBe(true);
  });
}
