/**
 * Where the graceful-rotation tests run (docs/contract.md §14): the Worker in this process
 * (in-process-app.ts) on a clock the test moves, and a webhook target served by
 * packages/receiver that keeps what each site's app runs with, as it applied it. The stage starts
 * in the test file's `beforeAll` and stops in its `afterAll`; with it, the reads of a site's
 * effective variables and of a connection's rotation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { createReceiver } from '../../packages/receiver/index.js';
import type { Seeded } from './connections';
import { type InProcessApp, startInProcessApp } from './in-process-app';

const SECRET = 'rotation-stage-webhook-secret-0123';

/** The Worker and the webhook an app runs behind. */
export interface RotationStage {
  /** The Worker (once the file's `beforeAll` started it). */
  readonly app: InProcessApp;
  /** The time the Worker and the receiver read; the test moves it. */
  at: Date;
  /** What each site's app runs with, by site id, as the receiver applied it. */
  readonly running: Map<string, Record<string, string>>;
  /** The body of a site's `PUT …/target` that sends its deliveries to the webhook. */
  webhookTarget(): { type: 'webhook'; url: string; secret: string };
}

/** The stage of this test file, started before its tests and stopped after them. */
export function rotationStage(): RotationStage {
  let app: InProcessApp | undefined;
  let hook: Server | undefined;
  const stage: RotationStage = {
    get app() {
      if (!app) throw new Error('the rotation stage starts in beforeAll');
      return app;
    },
    at: new Date(),
    running: new Map(),
    webhookTarget: () => ({
      type: 'webhook',
      url: `http://127.0.0.1:${(hook?.address() as AddressInfo | undefined)?.port}/`,
      secret: SECRET,
    }),
  };
  beforeAll(async () => {
    app = await startInProcessApp({ ALLOW_LOOPBACK_TARGETS: 'true' }, undefined, { now: () => stage.at });
    const receiver = createReceiver({
      secret: SECRET,
      now: () => stage.at.getTime(),
      apply: async ({
        set,
        unset,
        siteId,
      }: {
        set: Record<string, string>;
        unset: string[];
        siteId: string;
      }) => {
        const env = { ...(stage.running.get(siteId) ?? {}), ...set };
        for (const name of unset) delete env[name];
        stage.running.set(siteId, env);
      },
    });
    const server = createServer((req, res) => receiver.node(req, res));
    hook = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  });
  return stage;
}

/** A connection's rotation, as `GET …/rotation` answers it. */
export type Rotation = {
  state: string;
  immediate: boolean;
  live_at: string | null;
  retired_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
};

/** The rotation of the connection at `path` (200 expected). */
export async function rotationOf(s: Seeded, path: string): Promise<Rotation> {
  const res = await s.as.get<Rotation>(`${path}/rotation`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The variables site `site` (its API path) runs with, as a pull gets them. */
export const effectiveVars = async (s: Seeded, site: string): Promise<Record<string, string>> =>
  (await s.as.get<{ vars: Record<string, string> }>(`${site}/env/effective`)).body.vars;
