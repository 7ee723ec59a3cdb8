/**
 * The command-line tool does the whole job against the local stack, as a new user would from
 * an empty folder: log in, create a project, a site and a database, connect, pull the
 * variables, log in to the database with them, rotate, disconnect; every message names things
 * by slug or name, never by id.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount, uniqueSuffix } from '../helpers/api';
import { type CliHome, type CliResult, cliHome, runCli } from '../helpers/cli';
import { canLogin } from '../helpers/pg-login';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let h: CliHome;
let token: string;
const slug = `shop-${uniqueSuffix()}`;

/** Runs the tool and checks it succeeded, with no id in what a person reads. */
async function ok(args: string[], input?: string): Promise<CliResult> {
  const res = await runCli(h, args, input === undefined ? {} : { input });
  expect(res.stderr).not.toMatch(/error/);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  if (!args.includes('--json')) expect(`${res.stdout}${res.stderr}`).not.toMatch(UUID);
  return res;
}

/** The user, database and password of a PostgreSQL URL. */
function loginOf(url: string): { user: string; password: string; database: string } {
  const u = new URL(url);
  return {
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
  };
}

async function pulledUrl(file = '.env'): Promise<string> {
  const vars = parse(await readFile(join(h.cwd, file), 'utf8'));
  expect(vars.DATABASE_URL).toMatch(/^postgres:\/\//);
  return vars.DATABASE_URL as string;
}

beforeAll(async () => {
  token = (await createAccount()).token;
  // No TETHER_* variables: the stored login and the folder's link carry everything.
  h = await cliHome({});
});

afterAll(async () => {
  await h?.cleanup();
});

describe('tether does the whole job', () => {
  it('logs in with a token piped on stdin, and whoami names the account', async () => {
    await ok(['login', '--api', inject('baseUrl'), '--token', '-'], token);
    const who = await ok(['whoami', '--json']);
    expect(JSON.parse(who.stdout).account.email).toMatch(/@example\.test$/);
  });

  it('creates a project, links the folder, creates a site and a database that is connected at once', async () => {
    const created = await ok(['projects', 'create', 'Shop', '--slug', slug]);
    expect(created.stdout).toContain(slug);
    await ok(['link', slug]);
    await ok(['sites', 'create', 'web']);
    const db = await ok(['db', 'create', 'main']);
    expect(db.stdout).toContain('main');
    const listed = JSON.parse((await ok(['connections', '--site', 'web', '--json'])).stdout);
    expect(listed.connections.map((c: { resource_name: string }) => c.resource_name)).toEqual(['main']);
    const projects = JSON.parse((await ok(['projects', '--json'])).stdout);
    expect(projects.projects.map((p: { slug: string }) => p.slug)).toContain(slug);
  });

  it('connect changes the level, env pull writes a URL that logs in, and a hand-written file is kept', async () => {
    const connected = await ok(['connect', 'database', 'main', '--level', 'read-only']);
    expect(connected.stdout).toContain('read-only');
    await writeFile(join(h.cwd, '.env'), 'MINE=1\n');
    const refused = await runCli(h, ['env', 'pull']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\.env exists and was not written by tether: pass --yes/);
    expect(await readFile(join(h.cwd, '.env'), 'utf8')).toBe('MINE=1\n');
    const pulled = await ok(['env', 'pull', '--yes']);
    expect(pulled.stdout).toMatch(/kept as \.env\.\d{8}-\d{6}\.bak/);
    const backups = (await readdir(h.cwd)).filter((f) => /^\.env\.\d{8}-\d{6}\.bak$/.test(f));
    expect(backups).toHaveLength(1);
    expect(await readFile(join(h.cwd, backups[0] as string), 'utf8')).toBe('MINE=1\n');
    const { database, user, password } = loginOf(await pulledUrl());
    expect(await canLogin(database, user, password)).toBe(true);
    // A file tether wrote is replaced without asking.
    await ok(['env', 'pull']);
  });

  it('env set and unset change the user variables the next pull carries', async () => {
    await ok(['env', 'set', 'GREETING=hello world', 'LOG_LEVEL=debug']);
    await ok(['env', 'unset', 'LOG_LEVEL']);
    await ok(['env', 'pull']);
    const vars = parse(await readFile(join(h.cwd, '.env'), 'utf8'));
    expect(vars.GREETING).toBe('hello world');
    expect(vars.LOG_LEVEL).toBeUndefined();
    const listed = JSON.parse((await ok(['env', 'ls', '--json'])).stdout);
    expect(listed.vars).toEqual({ GREETING: 'hello world' });
  });

  it('rotate --immediate gives the connection a new password: the old one stops working, a new pull works', async () => {
    const before = loginOf(await pulledUrl());
    await ok(['rotate', 'database', 'main', '--immediate']);
    expect(await canLogin(before.database, before.user, before.password)).toBe(false);
    await ok(['env', 'pull']);
    const after = loginOf(await pulledUrl());
    expect(after.user).toBe(before.user);
    expect(after.password).not.toBe(before.password);
    expect(await canLogin(after.database, after.user, after.password)).toBe(true);
  });

  it('disconnect (with --yes) removes the credential: the pulled URL no longer logs in', async () => {
    const pulled = loginOf(await pulledUrl());
    await ok(['disconnect', 'database', 'main', '--yes']);
    expect(await canLogin(pulled.database, pulled.user, pulled.password)).toBe(false);
    const listed = JSON.parse((await ok(['connections', '--site', 'web', '--json'])).stdout);
    expect(listed.connections).toEqual([]);
  });

  it('stops, starts and deletes the database, and logout forgets the token', async () => {
    expect((await ok(['db', 'stop', 'main'])).stdout).toContain('stopped');
    expect((await ok(['db', 'start', 'main'])).stdout).toContain('running');
    const refused = await runCli(h, ['db', 'delete', 'main']);
    expect(refused.code).toBe(1);
    await ok(['db', 'delete', 'main', '--yes']);
    expect(JSON.parse((await ok(['db', 'ls', '--json'])).stdout).databases).toEqual([]);
    await ok(['logout']);
    const after = await runCli(h, ['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('not logged in');
  });
});
