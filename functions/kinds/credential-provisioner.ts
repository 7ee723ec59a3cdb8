/**
 * One interface for the credentials Tether makes at outside systems, one implementation per
 * kind of system (postgresql/, mongodb/ and bucket/, each its `<kind>-provisioner.ts`). A provisioner takes a level of its own
 * kind, already validated where the request came in: it never checks a level again.
 *
 * What `name` and `secret` are per kind: PostgreSQL role name and password; MongoDB user name and
 * password; bucket access key id and secret access key.
 */
import type { BucketRow, DatabaseRow } from '../../db/rows';
import type { SecretHold } from '../adapters/postgres-admin-interface';
import { pgCode } from '../adapters/postgres-sql';
import type { BucketLevel, DatabaseLevel, Level } from '../domain/levels';
import { ApiError } from '../lib/errors';
import { log } from '../lib/logger';

/** A credential at an outside system. */
export interface Credential {
  name: string;
  secret: string;
  /**
   * Set when a rotation's new secret is made but not yet in effect (PostgreSQL): the old one
   * keeps working, and the database's other changes wait, until it is committed once the new
   * secret is stored; rolled back, nothing changed.
   */
  hold?: SecretHold;
}

/**
 * How long a named principal's credential lives and where it may be used from (contract §7):
 * each system enforces them itself (PostgreSQL `VALID UNTIL` and host rules, Atlas
 * `deleteAfterDate` and MongoDB's `authenticationRestrictions.clientSource`, IAM
 * `aws:CurrentTime`/`aws:SourceIp`).
 */
export interface CredentialLimits {
  expiresAt: Date | null;
  allowedSources: string[];
}

/**
 * Credentials on one kind of service `R` at levels `L`. Every method either finishes at the
 * outside system or throws SERVICE_UNAVAILABLE (503) having left nothing behind there, so
 * callers write their rows only after it returns.
 */
export interface CredentialProvisioner<R, L extends Level> {
  /** Creates a credential at `level` (a named principal's with its `limits`). */
  create(resource: R, level: L, limits?: CredentialLimits): Promise<Credential>;
  /** Changes what the credential may do; its name and secret stay. */
  setLevel(resource: R, name: string, level: L): Promise<void>;
  /**
   * Gives the credential a new secret; `name` changes only for a bucket key (IAM cannot re-secret
   * a key id). A returned `hold` must be committed (or rolled back) by the caller.
   */
  rotate(resource: R, name: string): Promise<Credential>;
  /** Deletes the credential and ends its open sessions at once; deleting a missing one is a no-op. */
  drop(resource: R, name: string): Promise<void>;
  /**
   * A graceful rotation's new credential, of the same identity as `name` and valid beside it
   * (docs/contract.md §14): PostgreSQL and MongoDB a second login at `level` (same grants and
   * ownership rules), a bucket its key user's second access key. Absent: every rotate is immediate.
   */
  beside?(resource: R, name: string, level: L): Promise<Credential>;
  /**
   * Retires a rotation's old credential `name` (its sessions end); a missing one is a no-op.
   * Absent: {@link CredentialProvisioner.drop}.
   */
  retire?(resource: R, name: string): Promise<void>;
  /** Open sessions of credential `name` (a graceful rotation waits for none); absent: the system does not tell. */
  sessions?(resource: R, name: string): Promise<number>;
  /**
   * Present where a credential's allowed sources are enforced by the delivered network policy,
   * not by the system itself (PostgreSQL): `create` with sources then makes it unable to log in,
   * and this lets it log in once the policy naming them was acknowledged.
   */
  activate?(name: string): Promise<void>;
  /**
   * Sets credential `name`'s secret to `secret` (a database's main login, or a login given back
   * the secret it had) on the service whose physical name is `physical`; throws the system's own
   * error. Absent where a secret cannot be chosen (a bucket key).
   */
  setSecret?(physical: string, name: string, secret: string): Promise<void>;
}

/** Credentials on a database (PostgreSQL or MongoDB). */
export type DatabaseProvisioner = CredentialProvisioner<DatabaseRow, DatabaseLevel>;
/** Credentials on a bucket. */
export type BucketProvisioner = CredentialProvisioner<BucketRow, BucketLevel>;

/** Seconds to wait after a system refused for its connection limit (no Retry-After of its own). */
const CONNECTIONS_RETRY_AFTER = 5;

/**
 * A refusal that passes by itself, named for the answer, with how long to wait: a provider
 * limiting the request rate (an error carrying `retryAfter`: IAM's Throttling, Atlas's 429) or
 * a PostgreSQL server at its connection limit (SQLSTATE 53300).
 */
export function passingLimit(err: unknown): { limit: string; retryAfter: number } | undefined {
  const retryAfter = (err as { retryAfter?: unknown } | null)?.retryAfter;
  if (typeof retryAfter === 'number')
    return { limit: "the provider's limit on the rate of requests", retryAfter };
  if (pgCode(err) === '53300')
    return { limit: "the database server's connection limit", retryAfter: CONNECTIONS_RETRY_AFTER };
  // Drivers and adapters wrap what the system answered.
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause && cause !== err ? passingLimit(cause) : undefined;
}

/** The 503 for failed outside work: what could not be done, the limit met if any, nothing changed. */
function unavailable(what: string, err: unknown): ApiError {
  const limit = passingLimit(err);
  const refused = limit
    ? new ApiError(
        'SERVICE_UNAVAILABLE',
        `the service could not ${what}: it is at ${limit.limit}; nothing was changed, retry after ${limit.retryAfter} seconds`,
        undefined,
        limit.retryAfter,
      )
    : new ApiError('SERVICE_UNAVAILABLE', `the service could not ${what}; nothing was changed, retry later`);
  // Kept for the operator's records (the reconciler's failures), never in an answer.
  refused.cause = err;
  return refused;
}

/** Runs outside-system work, turning any failure into a 503 that says nothing was changed. */
export async function outside<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // The message of a driver or provider error never carries the secret we sent.
    log.error(`${what} failed:`, err);
    throw unavailable(what, err);
  }
}

/**
 * Runs an engine's work on its databases at the outside system; a failure is logged as `what`
 * and answered 503 SERVICE_UNAVAILABLE with `message` (what the caller may do about it).
 */
export async function atSystem<T>(what: string, message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    log.error(`${what} failed:`, err);
    const limit = passingLimit(err);
    const refused = limit
      ? new ApiError(
          'SERVICE_UNAVAILABLE',
          `${message} (the system is at ${limit.limit}; retry after ${limit.retryAfter} seconds)`,
          undefined,
          limit.retryAfter,
        )
      : new ApiError('SERVICE_UNAVAILABLE', message);
    // Kept for the operator's records (the reconciler's failures), never in an answer.
    refused.cause = err;
    throw refused;
  }
}

/**
 * Gives credential `name` of service `physical` the secret `secret` through `provisioner`; an
 * error where secrets cannot be chosen.
 */
export async function setSecret(
  provisioner: CredentialProvisioner<unknown, Level>,
  physical: string,
  name: string,
  secret: string,
): Promise<void> {
  if (!provisioner.setSecret) throw new Error('this system takes no chosen secret');
  await provisioner.setSecret(physical, name, secret);
}
