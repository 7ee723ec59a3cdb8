/**
 * A MongoDB database's own credential and its principals' end (contract §7) through the API on
 * a Worker whose admin side is the Atlas stand-in: the main user `u_…` is shown with its URLs
 * and logs in; a rotation gives it a new password (the old one refused) and changes no app's
 * own user, while the apps of a standalone database, handed the shared user, get the new one by
 * live patch (reason `credential`); deleting the database deletes its principals' users.
 */
import { describe, expect, it } from 'vitest';
import {
  connectionsPath,
  createDatabase,
  deliveriesOf,
  effectiveVars,
  projectPath,
} from '../helpers/connections';
import { connectionsWorldForFile, seededForFile } from '../helpers/for-file';

type Creds = { user: string; password: string; url: string; external_url: string; pooled_url: string };

const world = connectionsWorldForFile();
const s = seededForFile(2, () => world.worker.baseUrl);
const site = (i: number) => s.sites[i]?.id as string;

async function connect(i: number, dbId: string): Promise<void> {
  const res = await s.as.post(connectionsPath(s, site(i)), { kind: 'database', resource_id: dbId });
  expect(res.status, res.text).toBe(201);
}

/** The user and password of a mongodb:// URL. */
const login = (url: string) => {
  const u = new URL(url);
  return { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
};

describe("a MongoDB database's own credential", () => {
  it('shows the main user u_… in url, external_url and pooled_url; its password logs in at Atlas; a rotation refuses the old one and leaves an app its own user', async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb');
    await connect(0, db.id);
    const path = `${projectPath(s)}/databases/${db.id}/credentials`;
    const shown = await s.as.get<Creds>(path);
    expect(shown.status, shown.text).toBe(200);
    expect(Object.keys(shown.body).sort()).toEqual(['external_url', 'password', 'pooled_url', 'url', 'user']);
    expect(shown.body.user).toMatch(/^u_/);
    for (const url of [shown.body.url, shown.body.external_url, shown.body.pooled_url]) {
      expect(url).toMatch(/^mongodb(\+srv)?:\/\//);
      expect(login(url)).toEqual({ user: shown.body.user, password: shown.body.password });
    }
    expect(world.atlas.authenticates(shown.body.user, shown.body.password)).toBe(true);

    const app = login((await effectiveVars(s, site(0))).MONGODB_URI ?? '');
    expect(app.user).toMatch(/^c_[a-z0-9]{8}$/);
    const patchesBefore = (await deliveriesOf(site(0))).length;

    const rotated = await s.as.post<Creds>(`${path}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.user).toBe(shown.body.user);
    expect(rotated.body.password).not.toBe(shown.body.password);
    expect(login(rotated.body.url)).toEqual({ user: shown.body.user, password: rotated.body.password });
    expect(world.atlas.authenticates(shown.body.user, rotated.body.password)).toBe(true);
    expect(world.atlas.authenticates(shown.body.user, shown.body.password)).toBe(false);
    expect((await s.as.get<Creds>(path)).body.password).toBe(rotated.body.password);

    // The app's own user is untouched: same URL, still logs in, nothing delivered.
    expect(login((await effectiveVars(s, site(0))).MONGODB_URI ?? '')).toEqual(app);
    expect(world.atlas.authenticates(app.user, app.password)).toBe(true);
    expect((await deliveriesOf(site(0))).slice(patchesBefore)).toEqual([]);
  });

  it("a standalone database's apps, handed the shared user, get the new password by live patch (reason credential)", async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb', { replica_set: false });
    await connect(1, db.id);
    const before = login((await effectiveVars(s, site(1))).MONGODB_URI ?? '');
    expect(before.user).toMatch(/^u_/);
    const patchesBefore = (await deliveriesOf(site(1))).length;

    const rotated = await s.as.post<Creds>(`${projectPath(s)}/databases/${db.id}/credentials/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    const vars = await effectiveVars(s, site(1));
    const moved = Object.keys(vars).filter((n) => n.startsWith('MONGODB_U'));
    expect(moved).toEqual(expect.arrayContaining(['MONGODB_URI', 'MONGODB_URL']));
    for (const name of moved)
      expect(login(vars[name] ?? '')).toEqual({ user: before.user, password: rotated.body.password });
    const patches = (await deliveriesOf(site(1))).slice(patchesBefore);
    expect(patches.map((d) => [d.reason, [...d.set_names].sort(), d.unset_names])).toEqual([
      ['credential', moved.sort(), []],
    ]);
    expect(world.atlas.authenticates(before.user, rotated.body.password)).toBe(true);
    expect(world.atlas.authenticates(before.user, before.password)).toBe(false);
  });

  it("deleting the database deletes its principals' users at Atlas, so none logs in", async () => {
    const db = await createDatabase(s.as, s.project.id, 'mongodb');
    const base = `${projectPath(s)}/databases/${db.id}`;
    const made = await s.as.post<{ username: string; password: string }>(`${base}/principals`, {
      name: 'bi',
      level: 'read-only',
    });
    expect(made.status, made.text).toBe(201);
    expect(world.atlas.authenticates(made.body.username, made.body.password)).toBe(true);
    expect((await s.as.delete(base)).status).toBe(200);
    expect(world.atlas.user(made.body.username)).toBeUndefined();
    expect(world.atlas.authenticates(made.body.username, made.body.password)).toBe(false);
    expect((await s.as.get(`${base}/principals`)).status).toBe(404);
  });
});
