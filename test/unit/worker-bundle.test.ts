/**
 * What goes into the Worker's build (scripts/build-worker.ts): the command-line tool's packages
 * never do (they live in `dependencies` for `npm install -g`, but the Worker must not grow with
 * them), nor Swagger UI, whose files are static assets served before the Worker runs (wrangler.toml
 * `[assets]`), nor zod's messages in other languages. The build is split where the code imports
 * on first use: the modules workerd loads for a sign-in hold no management app or console, and
 * those it loads for a management answer no auth edge, console or route group.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, type WorkerModules } from '../../scripts/build-worker';

const CLI_ONLY = ['commander', 'picocolors', 'dotenv', 'ws'];

let built: WorkerModules;
const sources = new Map<string, string>();

beforeAll(async () => {
  built = await bundleWorker('functions/index.ts', await mkdtemp(join(tmpdir(), 'tether-build-')));
  for (const file of built.modules) sources.set(file, await readFile(join(built.dir, file), 'utf8'));
}, 60_000);
afterAll(() => rm(built.dir, { recursive: true, force: true }));

/** The source files a module was built from (esbuild's `// path` lines, unminified). */
const inputsOf = (file: string): string[] =>
  [...(sources.get(file) ?? '').matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] ?? '');

/** The modules `roots` import statically, themselves included: what loads with them. */
function loadedWith(...roots: string[]): string[] {
  const seen = new Set<string>(roots);
  for (const file of seen)
    for (const m of (sources.get(file) ?? '').matchAll(/^} from "\.\/([^"]+)";$|^import "\.\/([^"]+)";$/gm))
      seen.add(m[1] ?? m[2] ?? '');
  return [...seen];
}

/** The module the Worker's entry imports on first use that was built from `input`. */
function importedFor(input: string): string {
  const imported = loadedWith(built.main).flatMap((file) =>
    [...(sources.get(file) ?? '').matchAll(/import\("\.\/([^"]+)"\)/g)].map((m) => m[1] ?? ''),
  );
  const found = imported.find((file) => inputsOf(file).includes(input));
  if (!found) throw new Error(`no module imported on first use holds ${input}`);
  return found;
}

describe('the Worker build', () => {
  it("holds none of the CLI's packages, nor Swagger UI", () => {
    const packages = new Set(
      built.modules
        .flatMap(inputsOf)
        .map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    for (const name of CLI_ONLY) expect(packages.has(name), name).toBe(false);
    expect(packages.has('swagger-ui-dist'), 'swagger-ui-dist').toBe(false);
    expect(packages.has('hono')).toBe(true);
  });

  it("keeps zod's English messages and none of its other languages", () => {
    const locales = built.modules.flatMap(inputsOf).filter((path) => path.includes('zod/v4/locales/'));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });

  it('loads a sign-in without the management app, the console or the XML parser', () => {
    const eager = loadedWith(built.main, importedFor('functions/auth-edge.ts')).flatMap(inputsOf);
    expect(eager).toContain('functions/auth-edge.ts');
    expect(eager).not.toContain('functions/management-app.ts');
    expect(eager).not.toContain('functions/console/index.ts');
    expect(eager.filter((path) => path.includes('fast-xml-parser'))).toEqual([]);
    const all = built.modules.flatMap(inputsOf);
    expect(all).toContain('functions/management-app.ts');
    expect(all).toContain('functions/console/index.ts');
  });

  it('loads a management answer without the auth edge, the console or any route group', () => {
    const eager = loadedWith(built.main, importedFor('functions/management-app.ts')).flatMap(inputsOf);
    expect(eager).toContain('functions/management-app.ts');
    expect(eager).not.toContain('functions/auth-edge.ts');
    expect(eager).not.toContain('functions/console/index.ts');
    expect(eager).not.toContain('functions/routes/projects.ts');
    expect(eager).not.toContain('functions/routes/connections.ts');
  });
});
