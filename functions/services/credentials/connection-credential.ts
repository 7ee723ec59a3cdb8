/**
 * A connection's own credential at the outside system: a PostgreSQL login role or MongoDB user
 * `c_` + 8 of [a-z0-9], or an S3 key scoped to one bucket, made by the provisioner of the
 * service's kind (provisioner.ts). A connection served by its service's shared credential gets
 * none. Every function either finishes at the outside system or throws SERVICE_UNAVAILABLE (503)
 * having left nothing behind there; callers write their rows only after it returns.
 */
import type { BucketRow, DatabaseRow } from '../../../db/rows';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import type { BucketLevel, CredentialLevel, DatabaseLevel } from '../../domain/levels';
import { bucketProvisioner } from '../../kinds/bucket/provisioner';
import type {
  BucketProvisioner,
  Credential,
  CredentialLimits,
  DatabaseProvisioner,
} from '../../kinds/provisioner';
import { engineOf } from '../../kinds/registry';
import { ApiError } from '../../lib/errors';

/** The service a credential is for. */
export type CredentialTarget =
  | { kind: 'database'; resource: DatabaseRow }
  | { kind: 'bucket'; resource: BucketRow };

/** A credential target with the provisioner of its kind. */
export type ProvisionedTarget =
  | { kind: 'database'; resource: DatabaseRow; provisioner: DatabaseProvisioner }
  | { kind: 'bucket'; resource: BucketRow; provisioner: BucketProvisioner };

/** A provisioned target with a level of its own kind. */
type LeveledTarget =
  | (ProvisionedTarget & { kind: 'database'; level: DatabaseLevel })
  | (ProvisionedTarget & { kind: 'bucket'; level: BucketLevel });

/** A connection's credential: its own, or the service's shared one. */
export type CreatedCredential = ({ mode: 'own' } & Credential) | { mode: 'shared' };

/** A credential after rotation. `name` changes only for a bucket key (IAM cannot re-secret a key id). */
export type RotatedCredential = Credential;

/**
 * Whether connections to this service are served by its shared credential right now: a
 * standalone MongoDB always, any database while it is stopped (until it runs again).
 */
export function usesSharedCredential(target: CredentialTarget): boolean {
  if (target.kind === 'bucket') return false;
  const db = target.resource;
  return engineOf(db.engine).sharedOnly(db) !== null || db.status !== 'running' || db.deletedAt !== null;
}

/** The provisioner of the target's kind (and engine); 503 when the deployment configures none. */
export function provisionerFor(adapters: Adapters, target: CredentialTarget): ProvisionedTarget {
  if (target.kind === 'bucket') {
    if (!adapters.s3)
      throw new ApiError('SERVICE_UNAVAILABLE', 'no storage admin system is configured (IAM_ACCESS_KEY_ID)');
    return { ...target, provisioner: bucketProvisioner(adapters.s3) };
  }
  return { ...target, provisioner: engineOf(target.resource.engine).provisioner(adapters) };
}

/**
 * The target's provisioner with `level`. The level came parsed from a route's schema (or from
 * the stored connection it was written to) already typed for its kind; a level of the other
 * kind here would be a bug in the caller.
 */
function atLevel(adapters: Adapters, target: CredentialTarget, level: CredentialLevel): LeveledTarget {
  const p = provisionerFor(adapters, target);
  if (p.kind === 'database' && level.kind === 'database') return { ...p, level: level.level };
  if (p.kind === 'bucket' && level.kind === 'bucket') return { ...p, level: level.level };
  throw new Error(`a ${level.kind} level for a ${target.kind}`);
}

/** Creates the connection's own credential at `level`, or reports that the shared one serves it. */
export async function createConnectionCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  level: CredentialLevel,
): Promise<CreatedCredential> {
  if (usesSharedCredential(target)) return { mode: 'shared' };
  return { mode: 'own', ...(await createOwnCredential(adapters, target, level)) };
}

/**
 * Creates an own credential at `level`, whatever the service's state, through the provisioner
 * of its kind: connections and named principals (with their `limits`) alike.
 */
export function createOwnCredential(
  adapters: Adapters,
  target: CredentialTarget,
  level: CredentialLevel,
  limits?: CredentialLimits,
): Promise<Credential> {
  const p = atLevel(adapters, target, level);
  return p.kind === 'bucket'
    ? p.provisioner.create(p.resource, p.level, limits)
    : p.provisioner.create(p.resource, p.level, limits);
}

/** Changes what the credential may do; its name and secret stay. */
export async function setCredentialLevel(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
  level: CredentialLevel,
): Promise<void> {
  const p = atLevel(adapters, target, level);
  if (p.kind === 'bucket') await p.provisioner.setLevel(p.resource, name, p.level);
  else await p.provisioner.setLevel(p.resource, name, p.level);
}

/** Gives the credential a new secret (and, for a bucket key, a new key id); nothing else changes. */
export function rotateCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
): Promise<RotatedCredential> {
  const p = provisionerFor(adapters, target);
  return p.kind === 'bucket'
    ? p.provisioner.rotate(p.resource, name)
    : p.provisioner.rotate(p.resource, name);
}

/**
 * Gives a database login back the secret it had (a rotation whose new secret could not be
 * stored); a bucket key cannot be given back (IAM deletes the old key when it makes the new one).
 */
export async function restoreSecret(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
  secret: string,
): Promise<void> {
  const p = provisionerFor(adapters, target);
  if (p.kind === 'bucket' || !p.provisioner.setSecret)
    throw new Error('a replaced bucket key cannot come back');
  await p.provisioner.setSecret(name, secret);
}

/** Deletes the credential and ends its open sessions at once; deleting a missing one is a no-op. */
export function dropCredential(
  adapters: Adapters,
  _config: Config,
  target: CredentialTarget,
  name: string,
): Promise<void> {
  const p = provisionerFor(adapters, target);
  return p.kind === 'bucket' ? p.provisioner.drop(p.resource, name) : p.provisioner.drop(p.resource, name);
}
