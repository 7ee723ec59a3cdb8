/**
 * Headless Chromium for the end-to-end tests, from the repository's own install: the Chromium
 * that `@sparticuz/chromium` ships (unpacked once into the temporary folder), or a system
 * Chromium where one exists. `CHROMIUM_PATH` names another binary. No browser is downloaded.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type LaunchOptions } from 'playwright-core';
import { forFile } from './for-file';

/** Flags for a machine with no network but loopback, run as any user (root included). */
export const CHROMIUM_ARGS = [
  // Nothing outside this machine resolves (a provider's sign-in page may import a web font).
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--no-sandbox',
  '--no-zygote',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The Chromium binary to drive. The packaged one is unpacked on first use (about 15 s); the
 * global setup calls this once so test files running side by side never unpack it together.
 */
export async function chromiumExecutable(): Promise<string> {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) return chosen;
  const system = SYSTEM_CHROMIUM.find((path) => existsSync(path));
  if (system) return system;
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

function launchOptions(executablePath: string): LaunchOptions {
  return { executablePath, headless: true, args: CHROMIUM_ARGS };
}

/** A headless browser; close it in `afterAll`. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch(launchOptions(await chromiumExecutable()));
}

/** A browser context with its own fresh profile folder, removed again by `close()`. */
export async function launchChromiumContext(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'tether-chromium-'));
  const context = await chromium.launchPersistentContext(
    userDataDir,
    launchOptions(await chromiumExecutable()),
  );
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The Chromium of this vitest worker: launched by the first file that asks and kept for the files
 * after it (a launch costs about a second of CPU, and the end-to-end files share their worker's
 * modules: vitest.config.ts); launched again if it went away.
 */
let workerChromium: Promise<Browser> | undefined;

function chromiumOfWorker(): Promise<Browser> {
  if (!workerChromium) {
    const launched = launchChromium();
    workerChromium = launched;
    launched.then(
      (browser) => browser.on('disconnected', () => (workerChromium = undefined)),
      () => (workerChromium = undefined),
    );
  }
  return workerChromium;
}

/**
 * The file's Chromium: its worker's, and after the file's last test every context the file opened
 * is closed (a worker runs one file at a time, so each context open then is the file's), leaving
 * the next file a browser with none.
 */
export function chromiumForFile(): Browser {
  return forFile(chromiumOfWorker, async (browser) => {
    await Promise.all(browser.contexts().map((context) => context.close()));
  });
}
