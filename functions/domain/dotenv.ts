/**
 * A site's variables as the console's `Download .env` and `Copy all` give them: the same writer
 * as `tether env pull` (lib/shell-safe-env.mjs), so the file is safe to `source` (no value runs a
 * command) and the `dotenv` package reads it back exactly. Loader variables (docs/contract.md
 * §9) and the rare value no dotenv syntax can hold are left out, each named in a comment.
 */
import { isLoaderVariable, shellSafeDotenv } from '../lib/shell-safe-env.mjs';

/** `vars` as a dotenv file, names sorted, ending with a line break. */
export function toDotenv(vars: Record<string, string>): string {
  const loaders = Object.keys(vars).filter(isLoaderVariable).sort();
  const kept = Object.fromEntries(Object.entries(vars).filter(([name]) => !isLoaderVariable(name)));
  const first = shellSafeDotenv(kept);
  const notes = [
    ...loaders.map((n) => `${n} left out: a loader variable (tether env pull --allow-loader-vars writes it)`),
    ...first.failed.map((n) => `${n} left out: no dotenv syntax holds its exact value`),
  ];
  if (notes.length === 0) return first.text;
  const written = Object.fromEntries(Object.entries(kept).filter(([name]) => !first.failed.includes(name)));
  return shellSafeDotenv(written, notes).text;
}
