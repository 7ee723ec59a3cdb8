/**
 * The app of the graceful-rotation tests (docs/contract.md §14): every 50 ms it opens a NEW
 * database connection (PostgreSQL `DATABASE_URL`, or a MongoDB login with `MONGODB_URI`) and makes
 * an S3 request with the bucket key, with the values it currently runs with (what a running
 * deployment, Machine or receiver holds, or a pulled .env), and counts what failed. The test's
 * steps (a request, a queue message, a reconciler tick) run between two of its attempts through
 * {@link RotationApp.between}, so each attempt sees the world as one step left it.
 */
import { AwsClient } from 'aws4fetch';
import { MongoClient } from 'mongodb';
import pg from 'pg';

/** Opens a new PostgreSQL connection with `url` and runs one query; true when it worked. */
export async function postgresWorks(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Logs in to MongoDB with `uri` and pings; true when it worked. */
export async function mongoWorks(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  try {
    await client.connect();
    return (await client.db().command({ ping: 1 })).ok === 1;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Lists the bucket with the key of `env`; true on 200. */
export async function s3Works(env: Record<string, string>): Promise<boolean> {
  const client = new AwsClient({
    accessKeyId: env.STORAGE_ACCESS_KEY ?? '',
    secretAccessKey: env.STORAGE_SECRET_KEY ?? '',
    service: 's3',
    region: env.STORAGE_REGION ?? 'us-east-1',
    retries: 0,
  });
  const res = await client.fetch(`${env.STORAGE_ENDPOINT}/${env.STORAGE_BUCKET}?list-type=2`);
  await res.arrayBuffer();
  return res.status === 200;
}

/** What fails of one attempt with `env`: its database login, its bucket request (empty: none). */
export async function failuresWith(env: Record<string, string>): Promise<string[]> {
  const failed: string[] = [];
  if (env.DATABASE_URL !== undefined && !(await postgresWorks(env.DATABASE_URL))) failed.push('database');
  if (env.MONGODB_URI !== undefined && !(await mongoWorks(env.MONGODB_URI))) failed.push('database');
  if (env.STORAGE_ACCESS_KEY !== undefined && !(await s3Works(env))) failed.push('bucket');
  return failed;
}

/** The app's pace: one attempt every 50 ms. */
const EVERY_MS = 50;

/** A running app that tries its values every 50 ms. */
export class RotationApp {
  /** Attempts made (each: every instance's values tried once). */
  attempts = 0;
  /** What failed, `<attempt>: <what>`. */
  readonly failures: string[] = [];
  private stopped = false;
  private turn: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private waiting: Array<{ at: number; resolve: () => void }> = [];

  /** `running` reads the values each of the app's instances runs with now. */
  constructor(private readonly running: () => Promise<Array<Record<string, string>>>) {}

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.between(async () => {
        const instances = await this.running();
        if (instances.length === 0) this.failures.push(`${this.attempts}: no running instance`);
        for (const env of instances)
          for (const what of await failuresWith(env)) this.failures.push(`${this.attempts}: ${what}`);
        this.attempts++;
      });
      const reached = this.waiting.filter((w) => this.attempts >= w.at);
      this.waiting = this.waiting.filter((w) => this.attempts < w.at);
      for (const w of reached) w.resolve();
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
  }

  /** Runs `work` between two attempts (a step of the rotation). */
  between<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the app made `n` more attempts. */
  more(n: number): Promise<void> {
    const at = this.attempts + n;
    return new Promise((resolve) => this.waiting.push({ at, resolve }));
  }

  /** Stops after the attempt under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.waiting) w.resolve();
    await this.loop;
  }
}
