/**
 * `tether connect --local` for real: a PostgreSQL client runs queries through local ports,
 * WebSockets and the Worker's `cloudflare:sockets` connection, with the connection's own
 * credential. The route itself is tested in tunnel-route.test.ts.
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { parse } from 'dotenv';
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, isPortFree } from '../../scripts/local/net';
import { type ApiClient, createAccount } from '../helpers/api';
import { cliHomeForFile, exitOf, runCli, signInAs, spawnCli, waitForOutput } from '../helpers/cli';
import { createDatabase, createSite, type Service, seedProject } from '../helpers/connections';
import { eventually } from '../helpers/eventually';

let as: ApiClient;
let projectId: string;
let site: { id: string; slug: string };
let first: Service;
let second: Service;
const h = cliHomeForFile();

const upper = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** Two consecutive free ports, the first given to --port. */
async function twoFreePorts(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    if (port < 65535 && (await isPortFree(port + 1))) return port;
  }
  throw new Error('no two consecutive free ports');
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function refusedConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** Waits for the tool to say the tunnels are open, then returns the env file it wrote. */
async function waitForEnvFile(child: ChildProcessWithoutNullStreams, file: string): Promise<string> {
  await waitForOutput(child, /Tunnels are open/);
  return readFile(join(h.cwd, file), 'utf8');
}

/**
 * Waits until the cluster runs `sql` (so a client is mid-query through a tunnel). Each caller
 * names its own query: a backend of an earlier run may still be sleeping, since pg_sleep does
 * not notice that its client went away.
 */
async function waitForActiveQuery(sql: string): Promise<void> {
  await eventually(
    () =>
      query<{ n: number }>(
        inject('adminUrl'),
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = '${sql}'`,
      ),
    (rows) => rows[0]?.n === 1,
    10_000,
    `${sql} through the tunnel`,
  );
}

beforeAll(async () => {
  // One site: each new database is connected to it at the default level.
  const world = await seedProject(inject('baseUrl'), 1, { databases: 2 });
  ({ as, site } = world);
  projectId = world.project.id;
  [first, second] = world.databases as [Service, Service];
  signInAs(h, world);
});

describe('tether connect --local', () => {
  it('tunnels each database to a local port; a pg client queries through it with the connection credential', async () => {
    const port = await twoFreePorts();
    const child = spawnCli(h, ['connect', '--local', '--port', String(port)]);
    try {
      const out = await waitForOutput(child, /Tunnels are open/);
      expect(out).toContain(`127.0.0.1:${port}`);
      expect(out).toContain(`127.0.0.1:${port + 1}`);

      const file = join(h.cwd, '.env.local');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const local = parse(await readFile(file, 'utf8'));
      const effective = (
        await as.get<{ vars: Record<string, string> }>(
          `/api/v1/projects/${projectId}/sites/${site.id}/env/effective`,
        )
      ).body.vars;

      for (const [db, localPort] of [
        [first, port],
        [second, port + 1],
      ] as const) {
        const name = `DATABASE_URL_${upper(db.name)}`;
        const remote = new URL(effective[name] as string);
        const url = new URL(local[name] as string);
        expect(url.host).toBe(`127.0.0.1:${localPort}`);
        // Same credential and database as the app gets; only the address changed.
        expect([url.username, url.password, url.pathname]).toEqual([
          remote.username,
          remote.password,
          remote.pathname,
        ]);
        const [row] = await query<{ user: string; db: string }>(
          url.toString(),
          // session_user: the login role (a connect-level role then acts as the shared owner group).
          'SELECT session_user AS user, current_database() AS db',
        );
        expect(row?.user).toBe(decodeURIComponent(remote.username));
        expect(row?.db).toBe(remote.pathname.slice(1));
      }
      // The unsuffixed name belongs to the first database connected, and points at its port.
      expect(new URL(local.DATABASE_URL as string).port).toBe(String(port));
      // Variables that are not database URLs are written unchanged.
      for (const [n, v] of Object.entries(effective))
        if (!n.startsWith('DATABASE_URL')) expect(local[n]).toBe(v);

      // Real work, and two clients at once, each over its own WebSocket.
      const url = local[`DATABASE_URL_${upper(first.name)}`] as string;
      await query(url, 'CREATE TABLE tunnel_check (id int PRIMARY KEY, note text)');
      await query(url, "INSERT INTO tunnel_check VALUES (1, 'through the tunnel')");
      const both = await Promise.all([
        query<{ note: string }>(url, 'SELECT note FROM tunnel_check'),
        query<{ n: string }>(url, 'SELECT count(*)::text AS n FROM generate_series(1, 50000)'),
      ]);
      expect(both[0]).toEqual([{ note: 'through the tunnel' }]);
      expect(both[1]).toEqual([{ n: '50000' }]);

      // Another database of the same cluster, with the same credential, is refused by the Worker.
      const other = new URL(url);
      other.pathname = '/postgres';
      await expect(query(other.toString(), 'SELECT 1')).rejects.toThrow(
        /this tunnel reaches only its own database/,
      );

      child.kill('SIGINT');
      expect(await exitOf(child)).toBe(0);
      expect(await refusedConnect(port)).toBe('ECONNREFUSED');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s with a client connection open closes it and exits 0 at once',
    async (signal) => {
      const out = `open-${signal}.env`;
      const child = spawnCli(h, ['connect', '--local', '--site', site.slug, '--port', '0', '--out', out]);
      const client = new pg.Client({
        connectionString: parse(await waitForEnvFile(child, out)).DATABASE_URL,
        connectionTimeoutMillis: 10_000,
      });
      // The connection going away is the point; without a listener pg would throw it.
      client.on('error', () => {});
      try {
        await client.connect();
        const sql = `SELECT pg_sleep(8) AS ${signal.toLowerCase()}`;
        const sleeping = client.query(sql).then(
          () => 'query finished',
          (err: Error) => `connection closed: ${err.message}`,
        );
        await waitForActiveQuery(sql);
        child.kill(signal);
        // Well within the 8 s of the query: the tunnel does not wait for the client to finish.
        expect(await exitOf(child, 4_000)).toBe(0);
        expect(await sleeping).toMatch(/^connection closed/);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await client.end().catch(() => {});
      }
    },
  );

  it('a database disconnected while tunnels run is refused at the next connection, with the API message', async () => {
    const extra = await createDatabase(as, projectId);
    const child = spawnCli(h, [
      'connect',
      '--local',
      '--site',
      site.slug,
      '--port',
      '0',
      '--out',
      'extra.env',
    ]);
    try {
      await waitForOutput(child, /Tunnels are open/);
      const local = parse(await readFile(join(h.cwd, 'extra.env'), 'utf8'));
      const url = local[`DATABASE_URL_${upper(extra.name)}`] as string;
      expect(await query<{ one: number }>(url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      const removed = await as.delete(
        `/api/v1/projects/${projectId}/sites/${site.id}/connections/database/${extra.id}`,
      );
      expect(removed.body).toEqual({ removed: true });
      const warned = waitForOutput(child, /refused the tunnel: .*not found/, 10_000, 'stderr');
      await expect(query(url, 'SELECT 1')).rejects.toThrow();
      await warned;
      child.kill('SIGTERM');
      expect(await exitOf(child)).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a site connected to no PostgreSQL database is exit 1', async () => {
    const lonely = await createSite(as, projectId);
    const res = await runCli(h, ['connect', '--local', '--site', lonely.slug, '--port', '0']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('connected to no PostgreSQL database');
  });

  it('a member with the read role is refused by the API: exit 2', async () => {
    const reader = await createAccount();
    await as.put(`/api/v1/projects/${projectId}/members/${reader.id}`, { role: 'read' });
    const res = await runCli(h, ['connect', '--local', '--site', site.slug, '--port', '0'], {
      env: { TETHER_TOKEN: reader.token },
    });
    expect(res.stderr).toContain('403');
    expect(res.code).toBe(2);
  });

  it('--out naming a folder is exit 1 with one plain line, and leaves no temporary file', async () => {
    await mkdir(join(h.cwd, 'adir'));
    const res = await runCli(h, ['connect', '--local', '--site', site.slug, '--port', '0', '--out', 'adir']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: cannot write \S*adir: it is a folder\n$/);
    expect((await readdir(h.cwd)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a first port in use is exit 1 and writes nothing', async () => {
    const busy = await freePort();
    const blocker = (await import('node:net')).createServer().listen(busy, '127.0.0.1');
    try {
      const args = ['connect', '--local', '--site', site.slug, '--port', String(busy), '--out', 'busy.env'];
      const res = await runCli(h, args);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`port ${busy} is in use`);
      await expect(stat(join(h.cwd, 'busy.env'))).rejects.toThrow(/ENOENT/);
    } finally {
      blocker.close();
    }
  });
});
