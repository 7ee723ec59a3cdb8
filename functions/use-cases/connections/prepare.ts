/**
 * The outside-system half of a plan, done before any row is written: new credentials, level
 * changes and new secrets. If one step fails, every step already done is undone, so a 503
 * leaves nothing behind; if the later transaction fails, the caller undoes it all the same.
 */

import { credentialCleanups } from '../../../db/schema';
import { type CredentialLevel, type DatabaseLevel, type KindLevel, storedLevel } from '../../domain/levels';
import { hasCredential, isCredentialLevel, sharedLoginLevel, sharedLoginsOf } from '../../kinds/registry';
import { newId } from '../../lib/ids';
import { mapLimit } from '../../lib/map-limit';
import type { JobContext } from '../../request-context';
import {
  besideCredential,
  type CreatedCredential,
  type CredentialTarget,
  commitRotation,
  createConnectionCredential,
  dropCredential,
  type RotatedCredential,
  restoreSecret,
  retireCredential,
  rotateCredential,
  rotatesBeside,
  setCredentialLevel,
} from '../credentials/connection-credential';
import { handSharedLogin, sharedUserOf } from '../credentials/shared-reader';
import { sendInBatches } from '../delivery/deliveries';
import { loadTargets, type Plan } from './plan';
import { storedSecrets } from './rotation-failure';

/** A plan whose outside work is done. */
export interface Prepared {
  plan: Plan;
  /** The credential of each add, by index into `plan.adds`. */
  credentials: CreatedCredential[];
  /** New credentials of rotated connections, by connection id. */
  rotated: Map<string, RotatedCredential>;
  /** Databases whose shared read-only login the plan hands a read-only app (the write marks it handed). */
  readers: string[];
  /** Databases whose shared connect login the plan hands a connect-level app (likewise). */
  writers: string[];
  /** Reverses the outside work (best effort; what cannot be dropped is queued for cleanup). */
  undo(): Promise<void>;
  /**
   * After the rotated secrets could not be stored: gives each rotated database login its stored
   * password back, so the app's credential keeps working; returns the rotations it could not
   * undo (a bucket's old key is gone; the outside system failing again), to be stored instead.
   */
  unrotate(): Promise<Map<string, RotatedCredential>>;
  /** After the rotated secrets were stored: puts each held rotation into effect. */
  commitRotations(): Promise<void>;
  /** When the rotations started, and how long a graceful one keeps the old secret at most (seconds). */
  rotation: { at: Date; graceSeconds: number };
}

/** Whether a connection served `mode`'s credential at `grant` is handed a shared login of its level. */
const handsShared = (mode: string | undefined, grant: KindLevel): boolean =>
  mode === 'shared' && sharedLoginLevel(grant) !== null;

/** Drops credentials made for nothing; those that cannot be dropped now are queued for cleanup. */
async function dropAll(ctx: JobContext, made: Array<{ target: CredentialTarget; name: string }>) {
  const left: typeof made = [];
  await mapLimit(made, async (m) => {
    await dropCredential(ctx, { target: m.target, name: m.name }).catch(() => left.push(m));
  });
  if (left.length === 0) return;
  const rows = left.map((m) => ({
    id: newId(),
    kind: m.target.kind,
    resourceId: m.target.resource.id,
    credentialName: m.name,
  }));
  try {
    await ctx.db.insert(credentialCleanups).values(rows);
    await sendInBatches(
      ctx,
      rows.map((r) => ({ type: 'cleanup-credential', cleanupId: r.id })),
    );
  } catch (err) {
    ctx.log.error('recording credential cleanups failed; the reconciler finds orphans:', err);
  }
}

/**
 * Does the plan's outside work. `known` supplies targets already read, or not yet in the
 * database (the initial connection of a service whose row is being written); `storedAlready`, the
 * stored secrets of the rotated connections when the request read them already.
 */
export async function prepare(
  ctx: JobContext,
  plan: Plan,
  known: ReadonlyMap<string, CredentialTarget> = new Map(),
  storedAlready?: ReadonlyMap<string, string>,
): Promise<Prepared> {
  plan.activity ??= ctx.activity;
  const refs = [
    ...plan.adds.map((a) => ({ kind: a.resource.kind, id: a.resource.id })),
    ...plan.levels
      .filter((l) => l.conn.credentialMode === 'own' || handsShared(l.conn.credentialMode, l.grant))
      .map((l) => ({ kind: l.conn.kind, id: l.conn.resourceId })),
    ...plan.rotates.map((r) => ({ kind: r.kind, id: r.resourceId })),
  ].filter((r) => hasCredential(r.kind) && !known.has(r.id));
  const reads = ctx.http ?? ctx.db;
  // The stored secrets of rotated logins, read alongside the targets: a rotation that cannot be stored puts them back.
  const [loaded, stored] = await Promise.all([
    refs.length ? loadTargets(reads, refs) : [],
    storedAlready ?? storedSecrets(reads, plan.rotates),
  ]);
  const targets = new Map([...known, ...loaded]);
  const target = (id: string): CredentialTarget => {
    const t = targets.get(id);
    if (!t) throw new Error(`service ${id} vanished while connecting`);
    return t;
  };

  const made: Array<{ target: CredentialTarget; name: string }> = [];
  const releveled: Array<{ target: CredentialTarget; name: string; level: CredentialLevel }> = [];
  const undo = async () => {
    await mapLimit(releveled, (r) =>
      setCredentialLevel(ctx, { target: r.target, name: r.name, level: r.level }).catch((err: Error) =>
        ctx.log.error(`restoring the level of ${r.name} failed:`, err),
      ),
    );
    await dropAll(ctx, made);
  };

  try {
    const credentials = await mapLimit(plan.adds, async (a): Promise<CreatedCredential> => {
      if (!isCredentialLevel(a.grant)) return { mode: 'shared' };
      const t = target(a.resource.id);
      const created = await createConnectionCredential(ctx, { target: t, level: a.grant });
      if (created.mode === 'own') made.push({ target: t, name: created.name });
      return created;
    });
    // An app on the shared credential (the database is stopped) gets the shared login of its
    // level, never the main user: made now when the database has none (no metadata trip otherwise).
    const shared = new Map<string, DatabaseLevel>();
    const levelOf = sharedLoginLevel;
    plan.adds.forEach((a, i) => {
      const level = levelOf(a.grant);
      if (level && handsShared(credentials[i]?.mode, a.grant)) shared.set(`${a.resource.id} ${level}`, level);
    });
    for (const l of plan.levels) {
      const level = levelOf(l.grant);
      if (level && handsShared(l.conn.credentialMode, l.grant))
        shared.set(`${l.conn.resourceId} ${level}`, level);
    }
    const handed: Record<DatabaseLevel, string[]> = { 'read-only': [], connect: [] };
    for (const [key, level] of shared) {
      const db = sharedLoginsOf(target(key.split(' ')[0] ?? ''));
      if (!db) continue;
      if (sharedUserOf(db, level) || (await handSharedLogin(ctx, db, level))) handed[level].push(db.id);
    }
    await mapLimit(plan.levels, async (l) => {
      const was = storedLevel(l.conn);
      if (l.conn.credentialMode !== 'own' || !l.conn.credentialName) return;
      if (!isCredentialLevel(l.grant) || !isCredentialLevel(was)) return;
      const t = target(l.conn.resourceId);
      // A rotation's old credential, still valid, takes the new level too (a lowering is immediate).
      for (const name of [l.conn.credentialName, l.conn.retiringName]) {
        if (!name) continue;
        await setCredentialLevel(ctx, { target: t, name, level: l.grant });
        releveled.push({ target: t, name, level: was });
      }
    });
    const rotated = new Map<string, RotatedCredential>();
    // Rotation cannot be undone everywhere, so it runs last, once everything else has succeeded.
    // A graceful one makes a second credential beside the old (undone by retiring it); an
    // immediate one retires a previous rotation's old credential first, then re-secrets the login.
    const retireNew = (id: string, cred: RotatedCredential) => {
      const conn = plan.rotates.find((r) => r.id === id);
      return conn
        ? retireCredential(ctx, { target: target(conn.resourceId), name: cred.name })
        : Promise.resolve();
    };
    try {
      for (const r of plan.rotates) {
        const t = target(r.resourceId);
        const name = r.credentialName ?? '';
        const level = storedLevel(r);
        if (!plan.immediate && rotatesBeside(ctx, t) && isCredentialLevel(level)) {
          rotated.set(r.id, { ...(await besideCredential(ctx, { target: t, name, level })), retiring: name });
          continue;
        }
        if (r.retiringName) await retireCredential(ctx, { target: t, name: r.retiringName });
        rotated.set(r.id, await rotateCredential(ctx, { target: t, name }));
      }
    } catch (err) {
      for (const [id, cred] of rotated) {
        if (cred.retiring)
          await retireNew(id, cred).catch((e: Error) =>
            ctx.log.error(`removing the new credential ${cred.name} failed; the reconciler removes it:`, e),
          );
        else await cred.hold?.rollback();
      }
      throw err;
    }
    const unrotate = async () => {
      const left = new Map<string, RotatedCredential>();
      for (const [id, cred] of rotated) {
        const conn = plan.rotates.find((r) => r.id === id);
        const previous = stored.get(id);
        // A graceful rotation's old credential was never touched: its new one goes (unnamed, the
        // orphan sweep removes it should this fail).
        if (cred.retiring) {
          await retireNew(id, cred).catch((e: Error) =>
            ctx.log.error(`removing the new credential ${cred.name} failed; the reconciler removes it:`, e),
          );
          continue;
        }
        // A held rotation was never in effect: rolled back, the stored secret still works.
        if (cred.hold) {
          await cred.hold.rollback();
          continue;
        }
        try {
          if (!conn || previous === undefined) throw new Error('no stored secret to put back');
          const secret = await ctx.config.keyring.decrypt(previous);
          await restoreSecret(ctx, { target: target(conn.resourceId), name: cred.name, secret });
        } catch (err) {
          ctx.log.error(
            `putting back the stored secret of ${cred.name} failed; storing the new one instead:`,
            err,
          );
          left.set(id, cred);
        }
      }
      return left;
    };
    return {
      plan,
      credentials,
      rotated,
      readers: handed['read-only'],
      writers: handed.connect,
      undo,
      unrotate,
      rotation: { at: ctx.clock.now(), graceSeconds: plan.graceSeconds ?? ctx.config.ROTATION_GRACE_SECONDS },
      async commitRotations() {
        for (const [id, cred] of rotated) {
          const conn = plan.rotates.find((r) => r.id === id);
          if (conn) await commitRotation(ctx, { target: target(conn.resourceId), credential: cred });
        }
      },
    };
  } catch (err) {
    await undo();
    throw err;
  }
}
