/**
 * The local end of Neon's SQL-over-HTTP API (what `neon()` / drizzle's neon-http driver POSTs
 * to `https://<host>/sql` in production). It runs each request on a pooled `pg` connection to
 * the local cluster, so one-shot queries from the Worker cost one loopback HTTP round trip
 * instead of a new WebSocket, Postgres login and query. Only the local cluster's port is served.
 *
 * `delayMs` adds a fixed wait to every request before it is answered: the distance from an edge
 * Worker to the one region where Postgres lives (1 to 100 ms in production), which loopback does
 * not have. `npm run bench` sets it to measure latency at a realistic distance; the stack takes
 * it from TETHER_SQL_RTT_MS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';

interface SqlQuery {
  query: string;
  params?: Array<string | null>;
}

/** Values come back as Postgres text, exactly as Neon's endpoint returns them; the driver parses them. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/** Error fields the Neon driver copies onto its errors. */
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

const ISOLATION: Record<string, string> = {
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
  Serializable: 'SERIALIZABLE',
};

/** Pools per connection string, kept for the proxy's lifetime. */
export class SqlOverHttp {
  private readonly pools = new Map<string, pg.Pool>();
  /** Requests answered so far (each one round trip of the Worker's). */
  requests = 0;

  constructor(
    private readonly targetPort: number,
    /** Milliseconds every request waits before its answer (0: none). */
    public delayMs = 0,
  ) {}

  /** Whether this request is for the SQL endpoint. */
  static matches(req: IncomingMessage): boolean {
    return req.method === 'POST' && new URL(req.url ?? '/', 'http://proxy').pathname === '/sql';
  }

  /** Answers one POST /sql. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests++;
    const connectionString = String(req.headers['neon-connection-string'] ?? '');
    const pool = this.poolFor(connectionString);
    if (!pool) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"address not allowed"}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SqlQuery | { queries: SqlQuery[] };
    const delayed = this.delayMs > 0 ? wait(this.delayMs) : undefined;
    let client: pg.PoolClient | undefined;
    try {
      // A refused connection (too many connections, 53300) is answered like a failed query,
      // with its SQLSTATE, as Neon's endpoint answers it.
      client = await pool.connect();
      const result =
        'queries' in body
          ? { results: await this.batch(client, body.queries, req) }
          : await run(client, body);
      await delayed;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (err) {
      await delayed;
      const fields: Record<string, unknown> = { message: (err as Error).message };
      for (const f of ERROR_FIELDS) fields[f] = (err as unknown as Record<string, unknown>)[f];
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(fields));
    } finally {
      client?.release();
    }
  }

  private async batch(client: pg.PoolClient, queries: SqlQuery[], req: IncomingMessage) {
    const isolation = ISOLATION[String(req.headers['neon-batch-isolation-level'] ?? '')];
    const readOnly = req.headers['neon-batch-read-only'] === 'true';
    await client.query(
      `BEGIN${isolation ? ` ISOLATION LEVEL ${isolation}` : ''}${readOnly ? ' READ ONLY' : ''}`,
    );
    try {
      const results = [];
      for (const q of queries) results.push(await run(client, q));
      await client.query('COMMIT');
      return results;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  private poolFor(connectionString: string): pg.Pool | undefined {
    let url: URL;
    try {
      url = new URL(connectionString);
    } catch {
      return undefined;
    }
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost';
    if (!loopback || Number(url.port) !== this.targetPort) return undefined;
    let pool = this.pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 8, idleTimeoutMillis: 30_000 });
      pool.on('error', () => undefined);
      this.pools.set(connectionString, pool);
    }
    return pool;
  }

  /** Ends every pool. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.end().catch(() => undefined)));
    this.pools.clear();
  }
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function run(client: pg.PoolClient, q: SqlQuery) {
  const result = await client.query({
    text: q.query,
    values: q.params ?? [],
    rowMode: 'array',
    types: RAW_TEXT,
  });
  return {
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rowAsArray: true,
  };
}
