/**
 * A connection's stored database credential that its system no longer accepts (a rotation
 * whose new secret could not be stored nor undone, a password changed by hand) gets its stored
 * password back at the system: the app keeps the credential it was handed and notices nothing.
 * The cluster keeps only a salted verifier the admin may not read, so each login is judged by
 * logging in with it (one outside call each, which is why the sweep takes them a slice a tick),
 * by the engines that can say (`passwordRefused`). Before acting, the stored secret is read
 * again: one that changed since (a rotation that just finished) is judged at the next lap.
 * A repair is recorded in the project's Activity as `credential.repair` by `system`.
 */
import { eq } from 'drizzle-orm';
import { connections } from '../../../db/schema';
import { setSecret } from '../../kinds/credential-provisioner';
import { engineOf, isEngine } from '../../kinds/registry';
import type { OwnDatabaseCredential, RepairContext } from './drift';
import { connectionRepairEvent } from './repair-events';

/** Re-sets the stored password of one own login if its system refuses it; true if it did. */
export async function repairIfRefused(ctx: RepairContext, r: OwnDatabaseCredential): Promise<boolean> {
  const { db, config, adapters } = ctx;
  if (!r.name || !r.secret || !isEngine(r.engine)) return false;
  const engine = engineOf(r.engine);
  if (!engine.passwordRefused) return false;
  const password = await config.keyring.decrypt(r.secret);
  if (!(await engine.passwordRefused(adapters, r.physical, { user: r.name, secret: password }))) return false;
  const [now] = await db
    .select({ secret: connections.credentialSecretCiphertext })
    .from(connections)
    .where(eq(connections.id, r.id));
  if (now?.secret !== r.secret) return false;
  await setSecret(engine.provisioner(adapters), r.physical, r.name, password);
  // The repair's only metadata write is its record: who (Tether) put what right, and when.
  await connectionRepairEvent(db, r.id, 'password set again');
  return true;
}
