/**
 * A connection's own credential at the outside system: a PostgreSQL login role or MongoDB user
 * `c_` + 8 of [a-z0-9], or an S3 key scoped to one bucket, made by the provisioner of the
 * service's kind (kinds/<kind>/<kind>-provisioner.ts). A connection served by its service's shared credential gets
 * none. Every function either finishes at the outside system or throws SERVICE_UNAVAILABLE (503)
 * having left nothing behind there; callers write their rows only after it returns.
 */
import type { CredentialLevel, Level } from '../../domain/levels';
import type { Credential, CredentialLimits, CredentialProvisioner } from '../../kinds/credential-provisioner';
import { type CredentialKindName, type CredentialTarget, credentialsOf } from '../../kinds/registry';
import { log } from '../../lib/logger';
import type { JobContext } from '../../request-context';

/** What the functions here reach: the outside systems, through the kinds' provisioners. */
export type CredentialContext = Pick<JobContext, 'adapters' | 'config'>;

export type { CredentialTarget };

/** A connection's credential: its own, or the service's shared one. */
export type CreatedCredential = ({ mode: 'own' } & Credential) | { mode: 'shared' };

/**
 * A credential after rotation. An immediate one keeps its name (a bucket key aside: IAM cannot
 * re-secret a key id); a graceful one is a second credential, `retiring` naming the old one it replaces.
 */
export type RotatedCredential = Credential & { retiring?: string };

/**
 * Whether connections to this service are served by its shared credential right now: a
 * standalone MongoDB always, any database while it is stopped (until it runs again).
 */
export function usesSharedCredential<K extends CredentialKindName>(target: CredentialTarget<K>): boolean {
  return credentialsOf(target.kind).sharedNow(target.resource);
}

/** The provisioner of the target's kind (and engine); 503 when the deployment configures none. */
function provisionerFor(ctx: Pick<JobContext, 'adapters'>, target: CredentialTarget) {
  // The registry pairs each kind with its own rows and levels; the target's kind names its row.
  return credentialsOf(target.kind).provisioner(
    ctx.adapters,
    target.resource as never,
  ) as CredentialProvisioner<CredentialTarget['resource'], Level>;
}

/**
 * The level's name for the target. The level came parsed from a route's schema (or from the
 * stored connection it was written to) already typed for its kind; a level of another kind
 * here would be a bug in the caller.
 */
function levelFor(target: CredentialTarget, level: CredentialLevel): Level {
  if (level.kind !== target.kind) throw new Error(`a ${level.kind} level for a ${target.kind}`);
  return level.level;
}

/** Creates the connection's own credential at `level`, or reports that the shared one serves it. */
export async function createConnectionCredential(
  ctx: CredentialContext,
  { target, level }: { target: CredentialTarget; level: CredentialLevel },
): Promise<CreatedCredential> {
  if (usesSharedCredential(target)) return { mode: 'shared' };
  return { mode: 'own', ...(await createOwnCredential(ctx, { target, level })) };
}

/**
 * Creates an own credential at `level`, whatever the service's state, through the provisioner
 * of its kind: connections and named principals (with their `limits`) alike.
 */
export function createOwnCredential(
  ctx: Pick<JobContext, 'adapters'>,
  input: { target: CredentialTarget; level: CredentialLevel; limits?: CredentialLimits },
): Promise<Credential> {
  const { target, level, limits } = input;
  const at = levelFor(target, level);
  return provisionerFor(ctx, target).create(target.resource, at, limits);
}

/**
 * Whether a credential on `target` made with allowed sources waits, unable to log in, until the
 * network policy enforcing them is acknowledged (its provisioner can `activate`): PostgreSQL.
 * MongoDB and IAM enforce a principal's sources themselves.
 */
export function waitsForPolicy(
  ctx: Pick<JobContext, 'adapters'>,
  { target }: { target: CredentialTarget },
): boolean {
  return provisionerFor(ctx, target).activate !== undefined;
}

/** Lets a credential that waited for its sources' policy log in. */
export async function activateCredential(
  ctx: Pick<JobContext, 'adapters'>,
  { target, name }: { target: CredentialTarget; name: string },
): Promise<void> {
  await provisionerFor(ctx, target).activate?.(name);
}

/** Changes what the credential may do; its name and secret stay. */
export async function setCredentialLevel(
  ctx: CredentialContext,
  input: { target: CredentialTarget; name: string; level: CredentialLevel },
): Promise<void> {
  const { target, name, level } = input;
  const at = levelFor(target, level);
  await provisionerFor(ctx, target).setLevel(target.resource, name, at);
}

/** Gives the credential a new secret (and, for a bucket key, a new key id); nothing else changes. */
export function rotateCredential(
  ctx: CredentialContext,
  { target, name }: { target: CredentialTarget; name: string },
): Promise<RotatedCredential> {
  return provisionerFor(ctx, target).rotate(target.resource, name);
}

/**
 * Puts a rotation into effect once its new secret is stored: a held change commits. If the
 * commit fails the new secret is set again directly; failing that too, the reconciler's repair
 * of a refused login sets the stored (new) secret.
 */
export async function commitRotation(
  ctx: CredentialContext,
  { target, credential: cred }: { target: CredentialTarget; credential: RotatedCredential },
): Promise<void> {
  if (!cred.hold) return;
  try {
    await cred.hold.commit();
  } catch (err) {
    log.error(`committing the new secret of ${cred.name} failed; setting it again:`, err);
    await restoreSecret(ctx, { target, name: cred.name, secret: cred.secret }).catch((e: Error) =>
      log.error(`setting the new secret of ${cred.name} failed; the reconciler repairs it:`, e),
    );
  }
}

/**
 * Gives a database login back the secret it had (a rotation whose new secret could not be
 * stored); a bucket key cannot be given back (IAM deletes the old key when it makes the new one).
 */
export async function restoreSecret(
  ctx: CredentialContext,
  input: { target: CredentialTarget; name: string; secret: string },
): Promise<void> {
  const { target, name, secret } = input;
  const p = provisionerFor(ctx, target);
  if (!credentialsOf(target.kind).secretReturns || !p.setSecret)
    throw new Error(`a replaced ${target.kind} credential cannot come back`);
  await p.setSecret(target.resource.physicalName, name, secret);
}

/** Deletes the credential and ends its open sessions at once; deleting a missing one is a no-op. */
export function dropCredential(
  ctx: CredentialContext,
  { target, name }: { target: CredentialTarget; name: string },
): Promise<void> {
  return provisionerFor(ctx, target).drop(target.resource, name);
}

/** Whether the target's kind makes a graceful rotation's second credential (docs/contract.md §14). */
export function rotatesBeside(ctx: Pick<JobContext, 'adapters'>, target: CredentialTarget): boolean {
  return provisionerFor(ctx, target).beside !== undefined;
}

/**
 * A graceful rotation's new credential, valid beside `name` at `level`: a second login of the
 * same identity, or the key user's second key. The caller stores it, then retires `name` later.
 */
export function besideCredential(
  ctx: CredentialContext,
  input: { target: CredentialTarget; name: string; level: CredentialLevel },
): Promise<Credential> {
  const { target, name, level } = input;
  const p = provisionerFor(ctx, target);
  if (!p.beside) throw new Error(`a ${target.kind} credential takes no second secret`);
  return p.beside(target.resource, name, levelFor(target, level));
}

/** Retires a rotation's old credential (its sessions end); a missing one is a no-op. */
export function retireCredential(
  ctx: CredentialContext,
  { target, name }: { target: CredentialTarget; name: string },
): Promise<void> {
  const p = provisionerFor(ctx, target);
  return p.retire ? p.retire(target.resource, name) : p.drop(target.resource, name);
}

/** Open sessions of credential `name`; null where the system does not tell. */
export async function credentialSessions(
  ctx: CredentialContext,
  { target, name }: { target: CredentialTarget; name: string },
): Promise<number | null> {
  const p = provisionerFor(ctx, target);
  return p.sessions ? p.sessions(target.resource, name) : null;
}
