/**
 * The one way to reach Postgres: the Neon serverless driver under drizzle. One-shot queries go
 * over HTTP (`HttpDb`: one round trip, no connection set-up, as Neon recommends at the edge);
 * interactive transactions go over a WebSocket pool (`Db`).
 */
import { Client, neon, neonConfig, Pool } from '@neondatabase/serverless';
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { drizzle as drizzleHttp, type NeonHttpDatabase } from 'drizzle-orm/neon-http';
import { drizzle, type NeonDatabase } from 'drizzle-orm/neon-serverless';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { scramClientFinal } from './scram';

/**
 * A drizzle database. Built without the schema: no query uses drizzle's relational API, and
 * building its relations walks every table on each isolate's first query.
 */
export type Db = NeonDatabase;
/** A transaction handle, usable wherever a Db is. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either a database or a transaction. */
export type DbOrTx = Db | Tx;
/** A database for one-shot statements over HTTP (no interactive transactions). */
export type HttpDb = NeonHttpDatabase;
/** Anything that runs drizzle queries: a pool, a transaction or the HTTP driver. */
export type Queryable = PgDatabase<PgQueryResultHKT>;
/** Runs one statement and returns its rows. */
export async function rowsOf<T>(db: Queryable, query: SQL): Promise<T[]> {
  // Every driver answers `{rows}`; their drizzle types differ only in the result wrapper.
  const result = await (db as DbOrTx).execute(query);
  return result.rows as T[];
}

/** A query to send in a batch: any drizzle query not yet awaited, or `db.execute(sql)`. */
export type BatchQuery = BatchItem<'pg'>;

/**
 * Runs `queries` over HTTP in one round trip: one alone, several as one non-interactive
 * transaction (Neon's `transaction([...])`, drizzle's `batch`), so they read one snapshot.
 * Returns what each would have returned awaited alone (`db.execute` gives `{ rows }`).
 */
export async function runBatch(db: HttpDb, queries: readonly BatchQuery[]): Promise<unknown[]> {
  const [first, ...rest] = queries;
  if (first === undefined) return [];
  if (rest.length === 0) return [await first];
  return db.batch([first, ...rest]);
}

/** Sends one-shot queries to a local SQL-over-HTTP endpoint when one is configured. */
export function configureNeonHttp(endpoint: string | undefined): void {
  if (endpoint) neonConfig.fetchEndpoint = endpoint;
}

/** HTTP handles by connection string and endpoint: they hold no connection, so an isolate keeps them. */
const httpDbs = new Map<string, HttpDb>();

/** A drizzle handle whose every statement is one HTTP request; each isolate builds one per database and reuses it. */
export function createHttpDb(url: string, httpEndpoint: string | undefined): HttpDb {
  configureNeonHttp(httpEndpoint);
  const key = `${httpEndpoint ?? ''} ${url}`;
  let db = httpDbs.get(key);
  if (!db) {
    db = drizzleHttp(neon(url));
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

/**
 * The driver's client with a SCRAM-SHA-256 login that costs one PBKDF2 call, once per role and
 * isolate (db/scram.ts). The driver's own (@neondatabase/serverless 1.2.0, the newest) awaits
 * 4,096 WebCrypto HMACs one by one, some 40 ms of Worker CPU for every connection a server asks
 * to authenticate that way; node-postgres's SASL module, which derives the key in one call, is
 * not what the driver runs. Used for every WebSocket connection: the metadata pool and the
 * customer cluster's admin sessions.
 */
export class ScramClient extends Client {
  override async _handleAuthSASLContinue(message: { data: string }): Promise<void> {
    const session = this.saslSession as {
      message: string;
      clientNonce: string;
      response?: string;
      serverSignature?: string;
    };
    try {
      if (session?.message !== 'SASLInitialResponse' || typeof this.password !== 'string')
        throw new Error('SASL: protocol error');
      const { response, serverSignature } = await scramClientFinal(
        this.password,
        session.clientNonce,
        message.data,
      );
      session.message = 'SASLResponse';
      session.serverSignature = serverSignature;
      session.response = response;
      this.connection.sendSCRAMClientFinalMessage(response);
    } catch (err) {
      // As node-postgres does: the connect fails with the error instead of an unhandled rejection.
      this.connection.emit('error', err);
    }
  }
}

/** Opens a pool (connections are made lazily); the caller ends it when the request is done. */
export function createPool(url: string, wsProxy: string | undefined): Pool {
  configureNeon(wsProxy);
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.Client = ScramClient;
  return pool;
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
  return drizzle(pool);
}
