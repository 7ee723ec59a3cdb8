import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (plain Node, no services) and `integration` (HTTP tests against one
 * shared local stack started by test/global-setup.ts). The machine has two cores, so at most
 * two test files run at once.
 */
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/global-setup.ts'],
          maxWorkers: 2,
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
