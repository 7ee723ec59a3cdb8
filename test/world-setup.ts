/**
 * What the two global set-ups share (test/workerd-world.ts, the workerd world; test/node-world.ts,
 * the Node one): the data and log folders, a Worker log file's name, and the values handed to
 * test files, so a file reaches either world the same way (`inject('baseUrl')`, ...).
 */
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import type { LocalServices } from '../scripts/local/services';

/** The world's folders: its data (removed at the end unless TETHER_KEEP_DATA=1) and the Worker logs. */
export interface WorldFolders {
  dataDir: string;
  logDir: string;
  /** A Worker log file named `<prefix>-…` in the log folder, or none when TETHER_TEST_LOGS=1 (inline). */
  logFile(prefix: string): string | undefined;
  /** Removes the data folder, unless it is to be kept. */
  remove(): Promise<void>;
}

/** Makes the world's folders. */
export async function worldFolders(): Promise<WorldFolders> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tether-test-'));
  // mkdtemp makes the folder 0700; as root, postgres runs as another user and must enter it.
  await chmod(dataDir, 0o755);
  const logDir = join(tmpdir(), 'tether-test-logs');
  await mkdir(logDir, { recursive: true });
  return {
    dataDir,
    logDir,
    logFile: (prefix) =>
      process.env.TETHER_TEST_LOGS === '1'
        ? undefined
        : join(logDir, `${prefix}-${Date.now()}-${process.pid}.log`),
    remove: async () => {
      if (process.env.TETHER_KEEP_DATA !== '1') await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a world hands test files (`inject(key)`): its Worker's address and the services beside it. */
export type WorldValues = Omit<ProvidedContext, 'objectBindings' | 'cronWorlds'>;

/** The values of a world: its Worker's address and the services beside it. */
export function worldValues(
  world: { name: 'workerd' | 'node'; baseUrl: string; authUrl: string; folders: WorldFolders },
  services: Pick<
    LocalServices,
    'operatorToken' | 'adminUrl' | 'metadataUrl' | 'pgPort' | 'wsProxyUrl' | 'env'
  >,
): WorldValues {
  return {
    world: world.name,
    baseUrl: world.baseUrl,
    authUrl: world.authUrl,
    operatorToken: services.operatorToken,
    adminUrl: services.adminUrl,
    metadataUrl: services.metadataUrl,
    pgPort: services.pgPort,
    wsProxyUrl: services.wsProxyUrl,
    workerEnv: services.env,
    dataDir: world.folders.dataDir,
    logDir: world.folders.logDir,
  };
}

/** Hands test files a world's values (`inject('baseUrl')`, ...). */
export function provideWorld(project: TestProject, values: WorldValues): void {
  for (const [key, value] of Object.entries(values)) {
    project.provide(key as keyof WorldValues, value as never);
  }
}
