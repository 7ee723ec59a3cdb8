/**
 * A connection's stored PostgreSQL credential keeps logging in: a rotate whose new
 * secret cannot be stored puts the old password back and answers 503, and the reconciler
 * repairs a stored credential the cluster no longer accepts. Real Worker, real cluster, real
 * logins; the failure is a real one of the metadata database, refusing to store the new secret.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { systemEvents } from '../helpers/activity';
import { metadata, type Seeded, seed } from '../helpers/connections';
import { canLogin, superuser } from '../helpers/pg-login';
import { triggerScheduled } from '../helpers/worker';

let p: Seeded;
let dbId: string;
const base = () => `/api/v1/projects/${p.project.id}`;
const conn = () => `${base()}/sites/${p.sites[0]?.id}/connections/database/${dbId}`;

/** The site's DATABASE_URL as its app is handed it, split into a login. */
async function storedLogin() {
  const res = await p.as.get<{ vars: Record<string, string> }>(
    `${base()}/sites/${p.sites[0]?.id}/env/effective`,
  );
  const url = new URL(res.body.vars.DATABASE_URL as string);
  return { db: url.pathname.slice(1), user: url.username, password: decodeURIComponent(url.password) };
}
const logsIn = async () => {
  const login = await storedLogin();
  return canLogin(login.db, login.user, login.password);
};

beforeAll(async () => {
  p = await seed(inject('baseUrl'), 2);
  const made = await p.as.post<{ id: string }>(`${base()}/databases`, {
    name: `rep_${randomBytes(4).toString('hex')}`,
    engine: 'postgresql',
  });
  expect(made.status, made.text).toBe(201);
  dbId = made.body.id;
  const connected = await p.as.post(`${base()}/sites/${p.sites[0]?.id}/connections`, {
    kind: 'database',
    resource_id: dbId,
  });
  expect(connected.status, connected.text).toBe(201);
});

/**
 * Makes the metadata database refuse any new secret for the connection (a trigger raising on
 * that row only, so other files running meanwhile are untouched) while `work` runs.
 */
async function refusingNewSecrets<T>(work: () => Promise<T>): Promise<T> {
  const [row] = await metadata<{ id: string }>(
    'select id from connections where site_id = $1 and resource_id = $2',
    [p.sites[0]?.id, dbId],
  );
  const fn = `refuse_secret_${randomBytes(4).toString('hex')}`;
  await metadata(`create function ${fn}() returns trigger language plpgsql as $$
    begin raise exception 'injected fault: the new secret cannot be stored'; end $$`);
  await metadata(`create trigger ${fn} before update of credential_secret_ciphertext on connections
    for each row when (old.id = '${row?.id}'::uuid and new.credential_secret_ciphertext is distinct from old.credential_secret_ciphertext)
    execute function ${fn}()`);
  try {
    return await work();
  } finally {
    await metadata(`drop trigger ${fn} on connections`);
    await metadata(`drop function ${fn}()`);
  }
}

describe('a rotate whose new secret cannot be stored', () => {
  it("answers 503 in the API's shape, and the site's stored credential still logs in", async () => {
    const before = await storedLogin();
    expect(await logsIn()).toBe(true);
    // The immediate rotate (docs/contract.md §14): the same login, its password changed in place.
    const res = await refusingNewSecrets(() =>
      p.as.post<{ error: { code: string } }>(`${conn()}/rotate?immediate=true`),
    );
    expect(res.status, res.text).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(await storedLogin()).toEqual(before);
    expect(await logsIn()).toBe(true);
    // Once the secret can be stored again, a rotate goes through: new password in, old one out.
    expect((await p.as.post(`${conn()}/rotate?immediate=true`)).status).toBe(204);
    const after = await storedLogin();
    expect(after.password).not.toBe(before.password);
    expect(await canLogin(after.db, after.user, after.password)).toBe(true);
    expect(await canLogin(before.db, before.user, before.password)).toBe(false);
  });
});

describe('the reconciler', () => {
  let su: Awaited<ReturnType<typeof superuser>>;
  beforeAll(async () => {
    su = await superuser();
  });
  afterAll(() => su?.end());

  it('gives a role whose password no longer matches the stored credential its stored password back', async () => {
    const login = await storedLogin();
    await su.query(`ALTER ROLE "${login.user}" PASSWORD '${randomBytes(12).toString('hex')}'`);
    expect(await canLogin(login.db, login.user, login.password)).toBe(false);
    await triggerScheduled();
    expect(await canLogin(login.db, login.user, login.password)).toBe(true);
    // Nothing was handed out anew: the app's variables are what they were.
    expect(await storedLogin()).toEqual(login);
    // The project's Activity names the repair once, as Tether's own, on the site's connection.
    const repairs = await systemEvents(p.as, base(), 'credential.repair');
    expect(repairs).toEqual([
      expect.objectContaining({
        site_id: p.sites[0]?.id,
        target: expect.objectContaining({ type: 'connection' }),
        details: { repair: 'password set again' },
      }),
    ]);
  });

  it('repairs it while the database is stopped too (a stopped database refuses logins only after the password check)', async () => {
    const login = await storedLogin();
    await su.query(`ALTER ROLE "${login.user}" PASSWORD '${randomBytes(12).toString('hex')}'`);
    expect((await p.as.post(`${base()}/databases/${dbId}/stop`)).status).toBe(200);
    await triggerScheduled();
    expect((await p.as.post(`${base()}/databases/${dbId}/start`)).status).toBe(200);
    expect(await canLogin(login.db, login.user, login.password)).toBe(true);
    expect(await systemEvents(p.as, base(), 'credential.repair')).toHaveLength(2);
  });
});
