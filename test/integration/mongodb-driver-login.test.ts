/**
 * The official `mongodb` driver with the MONGODB_URI a site is handed by the local stack: it
 * names 127.0.0.1, where the local MongoDB endpoint logs in the users Atlas's stand-in holds.
 * Regression: the URI named `mongodb.local:27017`, which resolves nowhere, so no driver could
 * try a credential Tether handed out.
 */
import { MongoClient, MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { effectiveVars, projectPath, type SeededProject, seedProject } from '../helpers/connections';

let p: SeededProject;
const clients: MongoClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

beforeAll(async () => {
  p = await seedProject(inject('baseUrl'), 1, { databases: ['mongodb'] });
});

/** Connects with `uri` and pings; the server's answer, or the error code name it refused with. */
async function ping(uri: string): Promise<string> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  clients.push(client);
  try {
    await client.connect();
    const answer = await client.db().command({ ping: 1 });
    return answer.ok === 1 ? 'ok' : JSON.stringify(answer);
  } catch (err) {
    if (err instanceof MongoServerError) return err.codeName ?? String(err.code);
    throw err;
  } finally {
    await client.close();
  }
}

const dbPath = () => `${projectPath(p)}/databases/${p.databases[0]?.id}`;

describe('the mongodb driver against the local MongoDB', () => {
  it("logs in with the site's MONGODB_URI (127.0.0.1) and pings; other commands say what this endpoint is", async () => {
    const uri = (await effectiveVars(p)).MONGODB_URI ?? '';
    expect(new URL(uri).hostname).toBe('127.0.0.1');
    expect(await ping(uri)).toBe('ok');
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
    clients.push(client);
    const find = client.db().collection('orders').findOne({});
    await expect(find).rejects.toThrow(/checks logins only/);
    await client.close();
  });

  it('refuses a wrong password with AuthenticationFailed', async () => {
    const uri = new URL((await effectiveVars(p)).MONGODB_URI ?? '');
    uri.password = `${uri.password}x`;
    expect(await ping(uri.toString())).toBe('AuthenticationFailed');
  });

  // docs/contract.md §14: `?immediate=true` (a leaked secret) refuses the old URI at once; a
  // graceful rotate keeps it until the new one is live (rotation-graceful.test.ts).
  it("after the connection's immediate rotate the old URI is refused and the new one logs in", async () => {
    const before = (await effectiveVars(p)).MONGODB_URI ?? '';
    const rotated = await p.as.post(
      `${projectPath(p)}/sites/${p.site.id}/connections/database/${p.databases[0]?.id}/rotate?immediate=true`,
    );
    expect(rotated.status, rotated.text).toBeLessThan(300);
    const after = (await effectiveVars(p)).MONGODB_URI ?? '';
    expect(after).not.toBe(before);
    expect(await ping(before)).toBe('AuthenticationFailed');
    expect(await ping(after)).toBe('ok');
  });

  it('a principal logs in until revoked; one whose allowlist leaves out 127.0.0.1 never does', async () => {
    const made = await p.as.post<{ id: string; url: string }>(`${dbPath()}/principals`, {
      name: 'reporting',
      level: 'read-only',
    });
    expect(made.status, made.text).toBe(201);
    expect(await ping(made.body.url)).toBe('ok');
    const revoked = await p.as.delete(`${dbPath()}/principals/${made.body.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(await ping(made.body.url)).toBe('AuthenticationFailed');

    const elsewhere = await p.as.post<{ url: string }>(`${dbPath()}/principals`, {
      name: 'partner',
      level: 'read-only',
      allowed_sources: ['10.20.0.0/16'],
    });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    expect(await ping(elsewhere.body.url)).toBe('AuthenticationFailed');
  });
});
