/**
 * A Durable Object's `ctx.storage.sql` (workerd's SqlStorage) over a real SQLite database in
 * this process (sql.js, SQLite compiled to WebAssembly), for the object classes run in Node by
 * ./durable-objects.ts. Statements run eagerly, as the objects read them (`toArray`, `one`).
 */
import initSqlJs, { type Database, type SqlValue, type Statement } from 'sql.js';

/** The SQLite engine, loaded once per process. */
let engine: ReturnType<typeof initSqlJs> | undefined;

/** A fresh, empty in-memory SQLite database. */
export async function openDatabase(): Promise<Database> {
  engine ??= initSqlJs();
  return new (await engine).Database();
}

type Row = Record<string, SqlStorageValue>;

/** A value as workerd hands it out: blobs as ArrayBuffer. */
function fromSqlite(value: SqlValue): SqlStorageValue {
  if (value instanceof Uint8Array) return value.slice().buffer;
  return value;
}

/** A binding as SQLite takes it; workerd refuses what it cannot store, and so does this. */
function toSqlite(value: unknown): SqlValue {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`SqlStorage cannot bind a value of type ${typeof value}`);
}

/** The rows of one statement, read already: a cursor over them. */
class Cursor<T extends Row> implements SqlStorageCursor<T> {
  private at = 0;

  constructor(
    readonly columnNames: string[],
    private readonly rows: SqlStorageValue[][],
    readonly rowsWritten: number,
  ) {}

  get rowsRead(): number {
    return this.rows.length;
  }

  private object(values: SqlStorageValue[]): T {
    return Object.fromEntries(this.columnNames.map((name, i) => [name, values[i] ?? null])) as T;
  }

  next(): { done?: false; value: T } | { done: true; value?: never } {
    const values = this.rows[this.at];
    if (values === undefined) return { done: true };
    this.at++;
    return { value: this.object(values) };
  }

  toArray(): T[] {
    const rest = this.rows.slice(this.at).map((values) => this.object(values));
    this.at = this.rows.length;
    return rest;
  }

  one(): T {
    const rows = this.toArray();
    if (rows.length !== 1)
      throw new Error(`Expected exactly one result from SQL query, but got ${rows.length}.`);
    return rows[0] as T;
  }

  raw<U extends SqlStorageValue[]>(): IterableIterator<U> {
    const rest = this.rows.slice(this.at) as U[];
    this.at = this.rows.length;
    return rest[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.toArray()[Symbol.iterator]();
  }
}

/** workerd's SqlStorage on `db`: `exec` runs one statement with bindings, or several without. */
export function sqlStorage(db: Database): SqlStorage {
  const storage = {
    exec<T extends Row>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> {
      if (/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(query))
        throw new Error(
          'SqlStorage: use ctx.storage.transactionSync() instead of SQL transaction statements',
        );
      const changes = (): number => Number(db.exec('SELECT total_changes()')[0]?.values[0]?.[0] ?? 0);
      let last: Cursor<T> = new Cursor<T>([], [], 0);
      // Several statements are prepared one at a time: a later one may name a table an earlier one makes.
      const statements: Iterable<Statement> =
        bindings.length > 0 ? [db.prepare(query)] : db.iterateStatements(query);
      for (const statement of statements) {
        try {
          if (bindings.length > 0) statement.bind(bindings.map(toSqlite));
          const before = changes();
          const rows: SqlStorageValue[][] = [];
          while (statement.step()) rows.push(statement.get().map(fromSqlite));
          last = new Cursor<T>(statement.getColumnNames(), rows, changes() - before);
        } finally {
          statement.free();
        }
      }
      return last;
    },
    get databaseSize(): number {
      return db.export().byteLength;
    },
    Cursor,
    Statement: class {},
  };
  return storage as unknown as SqlStorage;
}
