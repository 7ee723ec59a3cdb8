/**
 * Where the graceful-rotation tests run (docs/contract.md §14): the Worker in this process
 * (in-process-app.ts) on a clock the test moves, and a webhook target served by
 * packages/receiver that keeps what each site's app runs with, as it applied it, started once
 * per file (`rotationStageForFile`); with it, the reads of a site's effective variables and of a
 * connection's rotation.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { createReceiver } from '../../packages/receiver/index.js';
import type { Seeded } from './connections';
import { forFile } from './for-file';
import { type InProcessApp, startInProcessApp } from './in-process-app';

const SECRET = 'rotation-stage-webhook-secret-0123';

/** The Worker and the webhook an app runs behind. */
export interface RotationStage {
  app: InProcessApp;
  /** The time the Worker and the receiver read (`clock.at`); the test moves it. */
  clock: { at: Date };
  /** What each site's app runs with, by site id, as the receiver applied it. */
  running: Map<string, Record<string, string>>;
  /** The body of a site's `PUT …/target` that sends its deliveries to the webhook. */
  webhookTarget(): { type: 'webhook'; url: string; secret: string };
  stop(): Promise<void>;
}

/** Starts the Worker (loopback targets allowed) and the webhook, both on a clock the test moves. */
export async function startRotationStage(): Promise<RotationStage> {
  const clock = { at: new Date() };
  const running = new Map<string, Record<string, string>>();
  const app = await startInProcessApp({ ALLOW_LOOPBACK_TARGETS: 'true' }, undefined, { now: () => clock.at });
  const receiver = createReceiver({
    secret: SECRET,
    now: () => clock.at.getTime(),
    apply: async ({
      set,
      unset,
      siteId,
    }: {
      set: Record<string, string>;
      unset: string[];
      siteId: string;
    }) => {
      const env = { ...(running.get(siteId) ?? {}), ...set };
      for (const name of unset) delete env[name];
      running.set(siteId, env);
    },
  });
  const hook = createServer((req, res) => receiver.node(req, res));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`;
  return {
    app,
    clock,
    running,
    webhookTarget: () => ({ type: 'webhook', url, secret: SECRET }),
    async stop() {
      await app.stop();
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    },
  };
}

/** The file's rotation stage, started before its first test and stopped after its last. */
export const rotationStageForFile = (): RotationStage => forFile(startRotationStage, (stage) => stage.stop());

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
