/**
 * A PostgreSQL database's own credentials (contract §7): the main user's password logs in, a
 * rotation refuses the old one and leaves connected apps their own; only an admin sees them.
 */

import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';
import { canLogin } from '../helpers/pg-login';
import { type Creds, postgresPrincipalsForFile } from '../helpers/postgres-principals';

const { world, database, session } = postgresPrincipalsForFile();

describe('database credentials', () => {
  it('show the main user u_…, whose password logs in; rotate gives a new one and the old is refused', async () => {
    const db = await database();
    expect(db.creds.user).toMatch(/^u_/);
    for (const url of [db.creds.url, db.creds.external_url, db.creds.pooled_url])
      expect(decodeURIComponent(new URL(url).username)).toBe(db.creds.user);
    const main = await session(db.physical, db.creds.user, db.creds.password);
    expect((await main.query('select 1 as one')).rows[0]).toEqual({ one: 1 });

    // An app connected before the rotation keeps its own credential.
    const site = world.sites[0] as { id: string };
    const conn = await world.as.post(`/api/v1/projects/${world.project.id}/sites/${site.id}/connections`, {
      kind: 'database',
      resource_id: db.id,
    });
    expect(conn.status).toBe(201);
    const env = await world.as.get<{ vars: Record<string, string> }>(
      `/api/v1/projects/${world.project.id}/sites/${site.id}/env/effective`,
    );
    const appUrl = new URL(env.body.vars.DATABASE_URL as string);

    const rotated = await world.as.post<Creds>(`${db.base}/credentials/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.user).toBe(db.creds.user);
    expect(rotated.body.password).not.toBe(db.creds.password);
    expect(await canLogin(db.physical, db.creds.user, db.creds.password)).toBe(false);
    expect(await canLogin(db.physical, db.creds.user, rotated.body.password)).toBe(true);
    expect(await canLogin(db.physical, appUrl.username, decodeURIComponent(appUrl.password))).toBe(true);
    const again = await world.as.get<Creds>(`${db.base}/credentials`);
    expect(again.body.password).toBe(rotated.body.password);
  });

  it('need the admin role: a writer gets 403, and nothing is shown', async () => {
    const db = await database();
    const { createAccount } = await import('../helpers/api');
    const writer = await createAccount();
    await world.as.put(`/api/v1/projects/${world.project.id}/members/${writer.id}`, { role: 'write' });
    const as = api().as(writer.token);
    expect((await as.get(`${db.base}/credentials`)).status).toBe(403);
    expect((await as.post(`${db.base}/credentials/rotate`)).status).toBe(403);
    expect((await as.get(`${db.base}/principals`)).status).toBe(403);
    expect((await as.post(`${db.base}/principals`, { name: 'x', level: 'nope' })).status).toBe(403);
  });
});
