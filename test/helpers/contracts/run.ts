/**
 * The adapter contract suites' runner (after better-auth's adapter tests): one list of
 * behavioural cases per outside-system interface, run against every implementation available
 * here. An implementation that needs credentials absent from the environment is skipped with
 * the reason in its title, so a run says which providers it did not reach.
 */
import { afterAll, beforeAll, describe } from 'vitest';

/** One implementation of an interface, with what its cases observe it through. */
export interface Implementation<H> {
  name: string;
  /** Why it cannot run here (missing credentials); undefined when it can. */
  skip?: string;
  start(): Promise<H>;
  stop?(harness: H): Promise<void>;
}

/** Runs `cases` against each implementation; each case reads the harness through `get`. */
export function runContract<H>(
  contract: string,
  implementations: ReadonlyArray<Implementation<H>>,
  cases: (get: () => H) => void,
): void {
  for (const impl of implementations) {
    const title = impl.skip
      ? `${contract}: ${impl.name} (skipped: ${impl.skip})`
      : `${contract}: ${impl.name}`;
    describe.skipIf(impl.skip !== undefined)(title, () => {
      let harness: H | undefined;
      beforeAll(async () => {
        harness = await impl.start();
      });
      afterAll(async () => {
        if (harness !== undefined) await impl.stop?.(harness);
      });
      cases(() => {
        if (harness === undefined) throw new Error(`${impl.name} did not start`);
        return harness;
      });
    });
  }
}

/** The reason to skip an implementation unless every variable in `names` is set. */
export function needsEnv(...names: string[]): string | undefined {
  const missing = names.filter((n) => !process.env[n]);
  return missing.length ? `set ${missing.join(' and ')} to run against the real provider` : undefined;
}
