/**
 * A connection's stored PostgreSQL credential that the cluster no longer accepts (a rotation
 * whose new secret could not be stored nor undone, a password changed by hand) gets its stored
 * password back at the cluster: the app keeps the credential it was handed and notices nothing.
 * The cluster keeps only a salted verifier the admin may not read, so each login is judged by
 * logging in with it. Before acting, the stored secret is read again: one that changed since
 * (a rotation that just finished) is judged at the next run instead.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { connections, databases } from '../../../db/schema';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import { setSecret } from '../../kinds/provisioner';
import { engineOf, engines } from '../../kinds/registry';
import { mapLimit } from '../../lib/map-limit';

/** The engines whose systems can say whether they refuse a login. */
const checkedEngines = () =>
  engines()
    .filter((e) => e.passwordRefused)
    .map((e) => e.name);

/** How many logins are tried at once. */
const CHECKS_PARALLEL = 4;

/** Re-sets the password of every own PostgreSQL login the cluster refuses; returns how many. */
export async function repairRefusedCredentials(
  db: DbOrTx,
  config: Config,
  adapters: Adapters,
): Promise<number> {
  const rows = await db
    .select({
      id: connections.id,
      name: connections.credentialName,
      secret: connections.credentialSecretCiphertext,
      physical: databases.physicalName,
      engine: databases.engine,
    })
    .from(connections)
    .innerJoin(databases, and(eq(databases.id, connections.resourceId), isNull(databases.deletedAt)))
    .where(
      and(
        eq(connections.kind, 'database'),
        eq(connections.credentialMode, 'own'),
        inArray(databases.engine, checkedEngines()),
      ),
    );
  const failures: string[] = [];
  const repaired = await mapLimit(
    rows,
    async (r) => {
      if (!r.name || !r.secret) return false;
      try {
        const password = await config.keyring.decrypt(r.secret);
        const engine = engineOf(r.engine);
        const login = { user: r.name, secret: password };
        if (!(await engine.passwordRefused?.(adapters, r.physical, login))) return false;
        const [now] = await db
          .select({ secret: connections.credentialSecretCiphertext })
          .from(connections)
          .where(eq(connections.id, r.id));
        if (now?.secret !== r.secret) return false;
        await setSecret(engine.provisioner(adapters), r.name, password);
        return true;
      } catch (err) {
        // Tried again at the next run (a role that is gone is restore-missing-credentials' work).
        failures.push((err as Error).message);
        return false;
      }
    },
    CHECKS_PARALLEL,
  );
  if (failures.length > 0)
    throw new Error(`checking ${failures.length} credential(s) failed: ${failures[0]}`);
  return repaired.filter(Boolean).length;
}
