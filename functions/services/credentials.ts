/**
 * A connection's own credential at the outside system: a PostgreSQL login role or MongoDB user
 * `c_` + 8 of [a-z0-9], or an S3 key scoped to one bucket. Every function either finishes at the
 * outside system or throws SERVICE_UNAVAILABLE (503) having left nothing behind there; callers
 * write their rows only after it returns.
 *
 * What `name` and `secret` are per kind: PostgreSQL role name and password; MongoDB user name and
 * password; bucket access key id and secret access key.
 */
import type { BucketRow, DatabaseRow } from '../../db/rows';
import type { Adapters } from '../adapters';
import { AtlasError } from '../adapters/mongodb-admin';
import type { BucketLevel } from '../domain/bucket-policy';
import type { Config } from '../env';
import { ApiError, unavailable } from '../lib/errors';
import { randomLowerAlnum, randomPassword } from '../lib/ids';

/** The service a credential is for. */
export type CredentialTarget =
  | { kind: 'database'; resource: DatabaseRow }
  | { kind: 'bucket'; resource: BucketRow };

/** A connection's credential: its own, or the service's shared one. */
export type CreatedCredential = { mode: 'own'; name: string; secret: string } | { mode: 'shared' };

/** A credential after rotation. `name` changes only for a bucket key (IAM cannot re-secret a key id). */
export interface RotatedCredential {
  name: string;
  secret: string;
}

type DbLevel = 'read-only' | 'connect';

/**
 * Whether connections to this service are served by its shared credential right now: a
 * standalone MongoDB always, any database while it is stopped (until it runs again).
 */
export function usesSharedCredential(target: CredentialTarget): boolean {
  if (target.kind === 'bucket') return false;
  const db = target.resource;
  return (db.engine === 'mongodb' && !db.replicaSet) || db.status !== 'running' || db.deletedAt !== null;
}

function dbLevel(level: string): DbLevel {
  if (level === 'read-only' || level === 'connect') return level;
  throw new ApiError('BAD_REQUEST', `level ${level} is not a database level`, 'level');
}

function bucketLevel(level: string): BucketLevel {
  if (level === 'read' || level === 'read-write') return level;
  throw new ApiError('BAD_REQUEST', `level ${level} is not a bucket level`, 'level');
}

/** Runs outside-system work, turning any failure into a 503 that says nothing was changed. */
async function outside<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // The message of a driver or provider error never carries the secret we sent.
    console.error(`${what} failed:`, (err as Error).message);
    throw unavailable(`the service could not ${what}; nothing was changed, retry later`);
  }
}

function mongo(adapters: Adapters) {
  if (!adapters.mongodb) throw unavailable('no MongoDB admin system is configured (MONGODB_ADMIN_URL)');
  return adapters.mongodb;
}

function s3(adapters: Adapters) {
  if (!adapters.s3) throw unavailable('no storage admin system is configured (IAM_ACCESS_KEY_ID)');
  return adapters.s3;
}

/** Creates the connection's own credential at `level`, or reports that the shared one serves it. */
export async function createConnectionCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  level: string,
): Promise<CreatedCredential> {
  if (usesSharedCredential(target)) return { mode: 'shared' };
  if (target.kind === 'bucket') {
    const lvl = bucketLevel(level);
    const key = await outside('prepare the bucket key', () =>
      s3(adapters).createKey(target.resource.physicalName, lvl, 'c_'),
    );
    return { mode: 'own', name: key.accessKeyId, secret: key.secretAccessKey };
  }
  const db = target.resource;
  const lvl = dbLevel(level);
  if (db.engine === 'postgresql') {
    const login = await outside('prepare the database role', () =>
      adapters.postgres.createLogin(db.physicalName, lvl, true),
    );
    return { mode: 'own', name: login.name, secret: login.password };
  }
  const admin = mongo(adapters);
  const password = randomPassword();
  return outside('prepare the database user', async () => {
    for (let attempt = 0; ; attempt++) {
      const name = `c_${randomLowerAlnum(8)}`;
      try {
        await admin.createUser(db.physicalName, name, password, lvl);
        return { mode: 'own' as const, name, secret: password };
      } catch (err) {
        // A taken name answers 409 (USER_ALREADY_EXISTS); draw again.
        if (!(err instanceof AtlasError && err.status === 409) || attempt >= 4) throw err;
      }
    }
  });
}

/** Changes what the credential may do; its name and secret stay. */
export async function setCredentialLevel(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
  level: string,
): Promise<void> {
  if (target.kind === 'bucket') {
    const lvl = bucketLevel(level);
    await outside('change the bucket key', () =>
      s3(adapters).setKeyLevel(target.resource.physicalName, name, lvl),
    );
    return;
  }
  const db = target.resource;
  const lvl = dbLevel(level);
  if (db.engine === 'postgresql') {
    await outside('change the database role', () =>
      adapters.postgres.setLoginLevel(db.physicalName, name, lvl, db.status === 'running'),
    );
    return;
  }
  const admin = mongo(adapters);
  await outside('change the database user', () => admin.setUserLevel(db.physicalName, name, lvl));
}

/** Gives the credential a new secret (and, for a bucket key, a new key id); nothing else changes. */
export async function rotateCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
): Promise<RotatedCredential> {
  if (target.kind === 'bucket') {
    const key = await outside('replace the bucket key', () =>
      s3(adapters).rotateKey(target.resource.physicalName, name),
    );
    return { name: key.accessKeyId, secret: key.secretAccessKey };
  }
  const db = target.resource;
  const secret = randomPassword();
  if (db.engine === 'postgresql') {
    await outside('replace the database password', () => adapters.postgres.setLoginPassword(name, secret));
  } else {
    const admin = mongo(adapters);
    await outside('replace the database password', () => admin.setUserPassword(name, secret));
  }
  return { name, secret };
}

/** Deletes the credential and ends its open sessions at once; deleting a missing one is a no-op. */
export async function dropCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
): Promise<void> {
  if (target.kind === 'bucket') {
    await outside('delete the bucket key', () => s3(adapters).dropKey(target.resource.physicalName, name));
    return;
  }
  const db = target.resource;
  if (db.engine === 'postgresql') {
    await outside('delete the database role', () => adapters.postgres.dropLogin(db.physicalName, name));
    return;
  }
  const admin = mongo(adapters);
  await outside('delete the database user', () => admin.dropUser(name));
}
