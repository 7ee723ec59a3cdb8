/**
 * A login's password change on the cluster, plain or held open. Held: the change is made in a
 * transaction that holds the database's lock (postgres-sql.ts privilegesLock) and commits only
 * when the caller says, after it stored the new password. Until then logins keep taking the old
 * one and every other change of the database (the reconciler's repair of a refused login
 * included) waits, so no repair can put the old password back between the change and its
 * stored record; a caller that cannot store rolls the change back and nothing happened.
 */
import type { SecretHold } from './postgres-admin-interface';
import type { AdminRun } from './postgres-pins';
import { ident, passwordClause } from './postgres-sql';

/** Gives login `name` a new password at once, under its database's lock (`lock`, privilegesLock's statement). */
export async function setPassword(
  run: AdminRun,
  lock: string,
  name: string,
  password: string,
): Promise<void> {
  const alter = `ALTER ROLE ${ident(name)} ${await passwordClause(password)}`;
  await run((client) => client.query(`${lock};\n${alter}`));
}

/**
 * Gives login `name` a new password in a transaction left open with the database's lock
 * held; resolves once the change is made (uncommitted), rejects with nothing changed.
 */
export async function holdPassword(
  run: AdminRun,
  /** The database's lock statement (privilegesLock). */
  lock: string,
  name: string,
  password: string,
): Promise<SecretHold> {
  const alter = `ALTER ROLE ${ident(name)} ${await passwordClause(password)}`;
  let decide: (commit: boolean) => void = () => undefined;
  const decided = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  let made: () => void = () => undefined;
  let refused: (err: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    made = resolve;
    refused = reject;
  });
  const session = run(async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(`${lock};\n${alter}`);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    made();
    await client.query((await decided) ? 'COMMIT' : 'ROLLBACK');
  });
  // A failed connect or change rejects `ready`; a failed commit rejects `commit()`.
  session.catch(refused);
  await ready;
  return {
    async commit() {
      decide(true);
      await session;
    },
    async rollback() {
      decide(false);
      // A session that dropped has rolled back by itself.
      await session.catch(() => undefined);
    },
  };
}
