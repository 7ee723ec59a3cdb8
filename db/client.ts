/**
 * The one way to reach Postgres: the Neon serverless driver under drizzle. One-shot queries go
 * over HTTP (`HttpDb`: one round trip, no connection set-up, as Neon recommends at the edge);
 * interactive transactions go over a WebSocket pool (`Db`).
 */
import { type NeonQueryFunction, neon, neonConfig, Pool } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleHttp, type NeonHttpDatabase } from 'drizzle-orm/neon-http';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';

/** A drizzle database over the metadata schema. */
export type Db = NeonDatabase<typeof schema>;
/** A transaction handle, usable wherever a Db is. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either a database or a transaction. */
export type DbOrTx = Db | Tx;
/** A database for one-shot statements over HTTP (no interactive transactions). */
export type HttpDb = NeonHttpDatabase<typeof schema>;
/** Anything that runs drizzle queries: a pool, a transaction or the HTTP driver. */
export type Queryable = PgDatabase<PgQueryResultHKT, typeof schema>;
/** Runs one statement and returns its rows. */
export async function rowsOf<T>(db: Queryable, query: SQL): Promise<T[]> {
  // Every driver answers `{rows}`; their drizzle types differ only in the result wrapper.
  const result = await (db as DbOrTx).execute(query);
  return result.rows as T[];
}

/** One statement of a batch: SQL text with `$n` placeholders and their values. */
export interface Statement {
  text: string;
  params: unknown[];
}

const dialect = new PgDialect();

/** A drizzle `sql` template as a {@link Statement}. */
export function statementOf(query: SQL): Statement {
  const built = dialect.sqlToQuery(query);
  return { text: built.sql, params: built.params };
}

/**
 * Runs `statements` over HTTP in one round trip: a single statement alone, several as one
 * non-interactive transaction (Neon's `transaction([...])`), so they read one snapshot. Rows
 * come back as objects keyed by column name, per statement. Raw text, no query builder: these
 * run on every read, where building a drizzle query cost more CPU than the rest of the request.
 */
export async function runBatch(
  db: HttpDb,
  statements: readonly Statement[],
): Promise<Array<Array<Record<string, unknown>>>> {
  const client = (db as HttpDb & { $client: NeonQueryFunction<false, false> }).$client;
  if (statements.length === 1) {
    const [only] = statements as [Statement];
    return [await client.query(only.text, only.params)];
  }
  return client.transaction(statements.map((s) => client.query(s.text, s.params)));
}

/** Sends one-shot queries to a local SQL-over-HTTP endpoint when one is configured. */
export function configureNeonHttp(endpoint: string | undefined): void {
  if (endpoint) neonConfig.fetchEndpoint = endpoint;
}

/** HTTP handles by connection string and endpoint: they hold no connection, so an isolate keeps them. */
const httpDbs = new Map<string, HttpDb>();

/**
 * A drizzle handle whose every statement is one HTTP request. Building one walks the whole
 * schema, so each isolate builds it once per database and reuses it across requests.
 */
export function createHttpDb(url: string, httpEndpoint: string | undefined): HttpDb {
  configureNeonHttp(httpEndpoint);
  const key = `${httpEndpoint ?? ''} ${url}`;
  let db = httpDbs.get(key);
  if (!db) {
    db = drizzleHttp(neon(url), { schema });
    httpDbs.set(key, db);
  }
  return db;
}

/**
 * Points the driver at a local WebSocket-to-TCP proxy when one is configured (local stack and
 * tests); in production it talks to Neon's own endpoint over TLS.
 */
export function configureNeon(wsProxy: string | undefined): void {
  if (!wsProxy) return;
  neonConfig.wsProxy = (host, port) => `${wsProxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** Opens a pool (connections are made lazily); the caller ends it when the request is done. */
export function createPool(url: string, wsProxy: string | undefined): Pool {
  configureNeon(wsProxy);
  return new Pool({ connectionString: url, max: 4 });
}

/**
 * Runs `work` while holding Postgres's advisory lock named `key`, so callers that take the same
 * key run one after another. The lock is transaction-scoped, held by an open transaction on a
 * pooled connection of its own: that pins one server connection even behind a transaction-mode
 * pooler (a session lock there could be taken and released on different server connections), and
 * Postgres lets it go if the connection drops.
 */
export async function withAdvisoryLock<T>(db: Db, key: string, work: () => Promise<T>): Promise<T> {
  const client = await (db as Db & { $client: Pool }).$client.connect();
  let broken = false;
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    return await work();
  } finally {
    // The transaction wrote nothing: ending it releases the lock.
    await client.query('rollback').catch(() => {
      broken = true;
    });
    client.release(broken);
  }
}

/**
 * Opens one pooled connection ahead of use, so its set-up (WebSocket, startup, authentication)
 * overlaps other work; resolves once it waits idle in the pool. A failure is left for the
 * first real statement to report.
 */
export function warmUp(db: Db): Promise<void> {
  return (db as Db & { $client: Pool }).$client.connect().then(
    (client) => client.release(),
    () => undefined,
  );
}

/** A drizzle handle over a pool. */
export function createDb(pool: Pool): Db {
  return drizzle(pool, { schema });
}
