/**
 * Builds the console's stylesheet (docs/console.md): functions/console/styles/console.css
 * compiled by Tailwind CSS 4 against the class names functions/console's files use, plus what
 * is generated from the code's own lists: one mask class per icon of functions/console/icons.tsx
 * (Lucide's SVGs, from `lucide-static`) and the rules that show a delivery target's fields only
 * while its type is chosen (one rule per target of functions/adapters/targets). Minified.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, optimize } from '@tailwindcss/node';
import { Scanner } from '@tailwindcss/oxide';
import { TARGETS } from '../../functions/adapters/targets';
import { ICONS } from '../../functions/console/icons';

const INPUT = fileURLToPath(new URL('../../functions/console/styles/console.css', import.meta.url));

/** `.i-<name>` for every icon: its SVG as a data URL the `.icon` class masks with. */
async function iconRules(): Promise<string> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('lucide-static/icons/copy.svg'));
  const rules = await Promise.all(
    Object.entries(ICONS).map(async ([name, file]) => {
      const svg = (await readFile(join(dir, `${file}.svg`), 'utf8'))
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/\s*class="[^"]*"/, '')
        .replace(/\s+/g, ' ')
        .replace(/> </g, '><')
        .trim();
      return `.i-${name}{--icon:url("data:image/svg+xml,${encodeURIComponent(svg)}")}`;
    }),
  );
  return rules.join('\n');
}

/** The delivery target form's fields (`data-for` lists their types) hidden unless their type is chosen. */
function targetFieldRules(): string {
  return TARGETS.map(
    ({ type }) =>
      `.target-form:has(select[name="type"] option[value="${type}"]:checked) [data-for]:not([data-for~="${type}"]){display:none}`,
  ).join('\n');
}

/** The compiled, minified stylesheet. */
export async function buildConsoleCss(): Promise<string> {
  const input = `${await readFile(INPUT, 'utf8')}\n@layer components {\n${await iconRules()}\n${targetFieldRules()}\n}\n`;
  const compiler = await compile(input, { base: dirname(INPUT), from: INPUT, onDependency: () => {} });
  const scanner = new Scanner({ sources: compiler.sources });
  return optimize(compiler.build(scanner.scan()), { minify: true }).code;
}
