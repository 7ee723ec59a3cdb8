/**
 * `npm test`: the typecheck and the lint run beside `vitest run` rather than before it. Before it,
 * the typecheck's main `tsc` (single-threaded, about 30 s) kept one of the machine's two cores
 * busy while the other waited, and the tests started only after it and the lint. A check's output
 * is shown when the tests end; a failed check is shown at once and stops the tests. Arguments go
 * to `vitest run`; the exit code is the first failure's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const VITEST = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url));

/** How a process ended: its exit code (1 for a signal) and, for a check, what it printed. */
interface Ended {
  code: number;
  output: string;
}

function ended(child: ChildProcess, output: () => string): Promise<Ended> {
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: 1, output: `${output()}${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output: output() }));
  });
}

/** `npm run <script>` with its output kept for later. */
function check(script: string): Promise<Ended & { script: string }> {
  const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return ended(child, () => output).then((end) => ({ ...end, script }));
}

function show(result: Ended & { script: string }): void {
  const verdict = result.code === 0 ? 'passed' : `failed (exit ${result.code})`;
  process.stderr.write(`\n── npm run ${result.script} ${verdict}\n${result.output}`);
}

const tests = spawn(VITEST, ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
const testsEnded = ended(tests, () => '');
const shown = new Set<string>();
const checks = ['typecheck', 'lint'].map((script) =>
  check(script).then((result) => {
    if (result.code !== 0 && tests.exitCode === null && tests.signalCode === null) {
      show(result);
      shown.add(script);
      tests.kill('SIGTERM');
    }
    return result;
  }),
);

const results = await Promise.all(checks);
const testCode = (await testsEnded).code;
for (const result of results) if (!shown.has(result.script)) show(result);
const failed = results.find((result) => result.code !== 0);
process.exitCode = failed ? failed.code : testCode;
