/**
 * Rotating a database's main password (contract §7) through the API on the shared Worker: the
 * sites handed the shared credential get one `credential` patch carrying the names whose value
 * moved, a site with its own credential gets none, and concurrent rotations leave the cluster
 * and the stored password agreeing.
 */
import { expect, it } from 'vitest';
import { createDatabase, deliveriesOf, metadata } from '../helpers/connections';
import { seededForFile } from '../helpers/for-file';
import { canLogin } from '../helpers/pg-login';

type Creds = { user: string; password: string; url: string };
const s = seededForFile(2);

const base = () => `/api/v1/projects/${s.project.id}`;
const site = (i: number) => s.sites[i]?.id as string;
const connect = async (i: number, dbId: string) => {
  const res = await s.as.post(`${base()}/sites/${site(i)}/connections`, {
    kind: 'database',
    resource_id: dbId,
  });
  expect(res.status, res.text).toBe(201);
};

it('rotate patches only the sites handed the shared main user, with reason credential and the moved names', async () => {
  const db = await createDatabase(s.as, s.project.id);
  await connect(0, db.id);
  // Connected while stopped: on the shared credential until the database runs again.
  expect((await s.as.post(`${base()}/databases/${db.id}/stop`)).status).toBe(200);
  await connect(1, db.id);
  // As a connection from before shared logins: handed the main user itself (a stopped database's
  // new connections get its shared connect login instead, shared-writer.test.ts).
  await metadata('update databases set writer_user = null, writer_password_ciphertext = null where id = $1', [
    db.id,
  ]);
  const before = [(await deliveriesOf(site(0))).length, (await deliveriesOf(site(1))).length];
  const res = await s.as.post<Creds>(`${base()}/databases/${db.id}/credentials/rotate`);
  expect(res.status, res.text).toBe(200);
  const own = (await deliveriesOf(site(0))).slice(before[0]);
  const shared = (await deliveriesOf(site(1))).slice(before[1]);
  expect(own).toEqual([]);
  const env = await s.as.get<{ vars: Record<string, string> }>(`${base()}/sites/${site(1)}/env/effective`);
  const urls = Object.keys(env.body.vars)
    .filter((n) => n.startsWith('DATABASE_URL'))
    .sort();
  expect(urls).toContain('DATABASE_URL');
  expect(shared.map((d) => [d.reason, [...d.set_names].sort(), d.unset_names])).toEqual([
    ['credential', urls, []],
  ]);
  for (const name of urls)
    expect(decodeURIComponent(new URL(env.body.vars[name] ?? '').password)).toBe(res.body.password);
});

it('concurrent rotations leave the stored main password the one the cluster takes', async () => {
  const db = await createDatabase(s.as, s.project.id);
  const path = `${base()}/databases/${db.id}/credentials`;
  const answers = await Promise.all([1, 2, 3].map(() => s.as.post<Creds>(`${path}/rotate`)));
  // 409: another stored its password first; 503: the cluster refused the simultaneous ALTER ROLE.
  for (const a of answers) expect([200, 409, 503], a.text).toContain(a.status);
  expect(answers.some((a) => a.status === 200)).toBe(true);
  const shown = await s.as.get<Creds>(path);
  const physical = new URL(shown.body.url).pathname.slice(1);
  expect(await canLogin(physical, shown.body.user, shown.body.password)).toBe(true);
});
