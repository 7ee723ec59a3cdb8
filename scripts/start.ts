/**
 * `npm start`: the whole service on this machine (embedded PostgreSQL + the Worker under
 * Miniflare) until Ctrl-C. Reads PORT (8787), DATA_DIR (.data) and the variables listed in
 * docs/contract.md §1 from the environment.
 */
import { resolve } from 'node:path';
import { OPERATOR_TOKEN_MIN_LENGTH } from '../functions/config';
import { isPortFree } from './local/net';
import { takeOverStopSignals } from './local/signals';
import { type LocalStack, startLocalStack } from './local/stack';

function parsePort(raw: string | undefined): number {
  const port = Number(raw ?? 8787);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`PORT must be a TCP port number (1-65535), got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** contract §9: a shorter OPERATOR_TOKEN stops the start, naming the variable. */
function checkOperatorToken(raw: string | undefined): void {
  if (raw && raw.length < OPERATOR_TOKEN_MIN_LENGTH) {
    throw new Error(
      `OPERATOR_TOKEN must be at least ${OPERATOR_TOKEN_MIN_LENGTH} characters (it has ${raw.length}); unset it to use the generated one`,
    );
  }
}

async function main(): Promise<void> {
  const port = parsePort(process.env.PORT);
  checkOperatorToken(process.env.OPERATOR_TOKEN);
  const dataDir = resolve(process.env.DATA_DIR || '.data');
  if (!(await isPortFree(port))) {
    throw new Error(
      `port ${port} is in use on 127.0.0.1: stop what uses it, or choose another port with PORT=${port === 8787 ? 8788 : port + 1} npm start`,
    );
  }

  // Locally anyone the sign-in stand-in vouches for may sign up, so the first step is signing in.
  const signup = { ACCOUNT_SIGNUP: process.env.ACCOUNT_SIGNUP || 'open' };
  const starting = startLocalStack({ port, dataDir, cron: true, signInStandIn: true, env: signup });
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    // Waits for a start still under way, so no child outlives this process.
    starting
      .then(
        (stack) => stack.stop(),
        () => undefined,
      )
      .then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  const stack: LocalStack = await starting;
  if (stopping) return;
  // Miniflare installed its own handlers (kill workerd, exit 130); this process stops in order.
  takeOverStopSignals(shutdown);

  const lines = [
    '',
    'Tether is running.',
    `  base URL:        ${stack.baseUrl}`,
    `  auth URL:        ${stack.authUrl}`,
    `  operator token:  ${stack.operatorToken}`,
    `  data dir:        ${dataDir}`,
    `  health:          ${stack.baseUrl}/healthz`,
  ];
  if (stack.signInStandInUrl) {
    lines.push(
      `  sign-in:         ${stack.signInStandInUrl} stands in for Google and GitHub (any client id and secret; pick a test user); real Google ID tokens are accepted too`,
    );
  }
  for (const [name, label] of [
    ['CLOUDFLARE_API_URL', 'Cloudflare API'],
    ['VERCEL_API_URL', 'Vercel API'],
    ['FLY_API_URL', 'Fly API'],
  ] as const) {
    const url = stack.env[name];
    if (url && !process.env[name])
      lines.push(`  ${`${label}:`.padEnd(17)}${url} (stand-in for delivery targets; see docs/delivery.md)`);
  }
  const publicBase = stack.env.PUBLIC_BASE_URL;
  const publicAuth = stack.env.PUBLIC_AUTH_URL;
  if (publicBase !== stack.baseUrl || publicAuth !== stack.authUrl) {
    lines.push(`  public URLs:     ${publicBase} (base), ${publicAuth} (auth)`);
  }
  lines.push('', ...nextSteps(stack.baseUrl, stack.operatorToken), '', 'Press Ctrl-C to stop.', '');
  console.log(lines.join('\n'));
}

/** What to do next: sign in in the browser, then the CLI's browser login; the operator's curl for scripts. */
function nextSteps(baseUrl: string, operatorToken: string): string[] {
  const readToken = `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).token'`;
  return [
    `Next: open ${baseUrl}/console and press "Continue with GitHub" (pick alice@example.com).`,
    'Then, in another terminal in this folder:',
    `  npx tether login --api ${baseUrl}      # your browser asks you to Authorize`,
    '  npx tether projects create Shop && npx tether link shop',
    '  npx tether sites create web && npx tether link shop --site web   # web: the default site from now on',
    '  npx tether db create main && npx tether env pull',
    '  (npm install -g . puts tether on your PATH; npx tether --help lists every command)',
    'Without a browser, the operator token makes an account and its token:',
    `  curl -sf -X POST ${baseUrl}/api/v1/accounts -H 'content-type: application/json' -H 'authorization: Bearer ${operatorToken}' -d '{"email":"dev@example.com"}' | ${readToken}`,
  ];
}

main().catch((err: unknown) => {
  // One line for people; the stack's own details (a log tail) follow only when there are some.
  const message = err instanceof Error ? err.message : String(err);
  console.error(`[tether] cannot start: ${message}`);
  process.exit(1);
});
