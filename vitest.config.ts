import { defineConfig } from 'vitest/config';
import { CRON_FILES } from './test/cron-files';

const integration = {
  environment: 'node' as const,
  // AppAuth-JS ships ESM with extensionless imports, which Node's loader cannot resolve: let Vite resolve them.
  server: { deps: { inline: ['@openid/appauth'] } },
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/**
 * Three projects: `unit` (plain Node, no services); `integration` (HTTP tests against one
 * shared local stack started by test/global-setup.ts; the machine has two cores, so at most
 * two test files run at once); and `integration-cron`, the files that fire the minute cron
 * (test/cron-files.ts), one at a time on a stack of their own once the others are done.
 */
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'packages/receiver/test/receiver.test.ts',
            'packages/auth-client/test/client.test.ts',
            'packages/auth-client/test/expo.test.ts',
          ],
          environment: 'node',
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: [
            'test/integration/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'packages/receiver/test/stack.test.ts',
            'packages/auth-client/test/stack.test.ts',
          ],
          exclude: CRON_FILES,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-cron',
          include: CRON_FILES,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
