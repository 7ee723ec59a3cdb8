/** Connection changes that lost a race to a concurrent request, run again in line. */
import { type Db, withAdvisoryLock } from '../../../db/client';
import { ConcurrentChange } from './write';

/** Attempts a change makes in line behind the project's lock before it gives up with 409. */
const ATTEMPTS_IN_LINE = 8;

/**
 * Runs a read-plan-apply cycle, again when a concurrent request changed the same sites between
 * this request's read and its write (the write verifies under a row lock and refuses stale
 * plans). The first attempt takes no lock, so an uncontended change pays nothing; a request
 * that lost a race waits in line on the project's advisory lock and re-reads there, so requests
 * that collide run one after another instead of failing each other again.
 */
export async function retryOnConcurrentChange<T>(db: Db, work: () => Promise<T>): Promise<T> {
  let projectId: string;
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ConcurrentChange)) throw err;
    projectId = err.projectId;
  }
  return withAdvisoryLock(db, `tether connections ${projectId}`, async () => {
    for (let i = 1; ; i++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof ConcurrentChange) || i >= ATTEMPTS_IN_LINE) throw err;
      }
    }
  });
}
