/** The Worker's environment check as a test asks it: which variables it refuses. */
import { type Bindings, EnvironmentError } from '../../functions/config';
import { loadConfig } from '../../functions/kinds/registry';

/** The names the environment check (every registered system's variables) refuses in `env`, or [] when it accepts it. */
export function refusedNames(env: Record<string, unknown>): string[] {
  try {
    loadConfig(env as unknown as Bindings);
    return [];
  } catch (err) {
    if (err instanceof EnvironmentError) return err.names;
    throw err;
  }
}
