/**
 * A graceful rotate never breaks a running app, wherever it runs (docs/contract.md §14): for a
 * webhook with packages/receiver, Cloudflare, Vercel, Fly and a pulled .env, an app opens a NEW
 * database connection and makes an S3 request with the bucket key every 50 ms with the values it
 * runs with (what the receiver applied, the Worker's secrets, the newest READY production
 * deployment, each started Machine, the file), through a rotate of both: 0 failures. Once the
 * rotation is `done` the old secrets are refused; `?immediate=true` refuses them at once. A MongoDB
 * connection rotates the same way (its old user's sessions are not told: `old_sessions` null).
 * The Worker runs here (test/helpers/rotation-stage.ts) on a clock the test moves; the test hands
 * it each queue message and tick between two of the app's attempts (test/helpers/rotation-app.ts).
 */
import { describe, expect, it } from 'vitest';
import { createBucket, createDatabase, type Seeded, seed } from '../helpers/connections';
import { createResource, type PlatformCase, platformCases, resourceState } from '../helpers/platforms';
import { failuresWith, RotationApp } from '../helpers/rotation-app';
import { effectiveVars, rotationOf, rotationStageForFile } from '../helpers/rotation-stage';

const stage = rotationStageForFile();
/** The next message of `stage.app.sent` not yet handed to the Worker. */
let next = 0;

/** A site connected to a database of `engine` and a bucket. */
interface World {
  s: Seeded;
  site: string;
  siteId: string;
  paths: string[];
}

async function world(engine: 'postgresql' | 'mongodb'): Promise<World> {
  const s = await seed(stage.app.baseUrl, 1);
  const db = await createDatabase(s.as, s.project.id, engine);
  const bucket = await createBucket(s.as, s.project.id);
  const siteId = s.sites[0]?.id as string;
  const site = `/api/v1/projects/${s.project.id}/sites/${siteId}`;
  next = stage.app.sent.length;
  return {
    s,
    site,
    siteId,
    paths: [`${site}/connections/database/${db.id}`, `${site}/connections/bucket/${bucket.id}`],
  };
}

/**
 * Hands the Worker every queued delivery and confirmation, in order, each between two attempts
 * of the app (a retried one again); returns how many steps it took.
 */
async function drain(running: RotationApp | null): Promise<number> {
  let steps = 0;
  for (; next < stage.app.sent.length; steps++) {
    if (steps > 100) throw new Error('the queue never drained');
    const message = stage.app.sent[next] as (typeof stage.app.sent)[number];
    const handle = async () => {
      if (message.type !== 'deliver' && message.type !== 'confirm-live') return true;
      const [outcome] = await stage.app.runQueue([message]);
      return outcome?.acked === true;
    };
    const acked = running ? await running.between(handle) : await handle();
    if (acked) next++;
    await running?.more(1);
  }
  return steps;
}

/** Where an app runs: how its target is set, and what its instances run with. */
interface Where {
  name: string;
  /** Sets the site's target (none for a pulled .env); returns what the app's instances run with. */
  setUp(w: World): Promise<() => Promise<Array<Record<string, string>>>>;
}

const platform = (type: PlatformCase['type'], fields: Record<string, string> = {}): Where => ({
  name: type,
  async setUp(w) {
    const p = platformCases().find((c) => c.type === type) as PlatformCase;
    await createResource({ ...p, fields: { ...p.fields, ...fields } }, `tok-${type}`);
    const set = await w.s.as.put(`${w.site}/target`, p.target(`tok-${type}`));
    expect(set.status, set.text).toBe(200);
    return async () => {
      const state = await resourceState(p);
      if (type === 'cloudflare') return [state.vars];
      if (type === 'vercel') {
        const serving = state.deployments?.find((d) => d.target === 'production' && d.readyState === 'READY');
        return serving ? [serving.env] : [];
      }
      return (state.machines ?? []).filter((m) => m.state === 'started').map((m) => m.env);
    };
  },
});

const WHERE: Where[] = [
  {
    name: 'webhook',
    async setUp(w) {
      const set = await w.s.as.put(`${w.site}/target`, stage.webhookTarget());
      expect(set.status, set.text).toBe(200);
      return async () => [stage.running.get(w.siteId) ?? {}];
    },
  },
  platform('cloudflare'),
  platform('vercel'),
  platform('fly', { machines: '2' }),
  {
    name: 'a pulled .env',
    async setUp(w) {
      const pulled = await effectiveVars(w.s, w.site);
      return async () => [pulled];
    },
  },
];

const allDone = async (w: World) => {
  for (const path of w.paths) if ((await rotationOf(w.s, path)).state !== 'done') return false;
  return true;
};

/**
 * Runs the app through a graceful rotate of the world's database and bucket connections until
 * both are `done`: the reconciler's ticks, and for a pulled .env (nothing confirms it live) the
 * deadline passed. Returns the values the app ran with before, and the app.
 */
async function gracefulRotate(w: World, where: Where) {
  const running = await where.setUp(w);
  await drain(null);
  const [before] = await running();
  expect(before?.STORAGE_ACCESS_KEY, `${where.name} runs with the bucket key`).toBeDefined();
  const runningApp = new RotationApp(running);
  runningApp.start();
  await runningApp.more(3);
  let steps = 0;
  for (const path of w.paths) {
    const res = await runningApp.between(() => w.s.as.post(`${path}/rotate`));
    expect(res.status, res.text).toBe(204);
    await runningApp.more(2);
    steps++;
  }
  steps += await drain(runningApp);
  for (let tick = 0; !(await allDone(w)); tick++) {
    if (tick >= 5) throw new Error(`${where.name}: the rotations never finished`);
    if (where.name === 'a pulled .env') {
      const deadline = (await rotationOf(w.s, w.paths[0] as string)).retires_by ?? '';
      await runningApp.between(async () => {
        stage.clock.at = new Date(new Date(deadline).getTime() + 1000);
      });
      // The app would now be refused: it stops before the deadline passes, as the grace says.
      await runningApp.stop();
      await stage.app.runScheduled();
      steps++;
      continue;
    }
    await runningApp.between(() => stage.app.runScheduled());
    steps += 1 + (await drain(runningApp));
    await runningApp.more(2);
  }
  await runningApp.stop();
  return { before: before as Record<string, string>, runningApp, steps, running };
}

describe('a graceful rotate through every place an app runs', () => {
  for (const where of WHERE) {
    it(`${where.name}: an app opening new connections every 50 ms sees 0 failures; the old secrets are refused once done, an immediate rotate's at once`, async () => {
      const w = await world('postgresql');
      const { before, runningApp, steps, running } = await gracefulRotate(w, where);
      expect(runningApp.failures).toEqual([]);
      // At least one attempt after every step, and a few before.
      expect(runningApp.attempts).toBeGreaterThanOrEqual(steps + 3);
      expect(await failuresWith(before)).toEqual(['database', 'bucket']);
      for (const path of w.paths) expect((await rotationOf(w.s, path)).state).toBe('done');

      // A leaked secret: refused at once, before anything is delivered (a .env pulled again now).
      const [now] = where.name === 'a pulled .env' ? [await effectiveVars(w.s, w.site)] : await running();
      // The running app took the new secrets (every instance), and they work.
      for (const env of where.name === 'a pulled .env' ? [] : await running()) {
        expect(env.DATABASE_URL).not.toBe(before.DATABASE_URL);
        expect(env.STORAGE_ACCESS_KEY).not.toBe(before.STORAGE_ACCESS_KEY);
      }
      expect(now?.STORAGE_ACCESS_KEY).not.toBe(before.STORAGE_ACCESS_KEY);
      expect(await failuresWith(now ?? {})).toEqual([]);
      for (const path of w.paths)
        expect((await w.s.as.post(`${path}/rotate?immediate=true`)).status).toBe(204);
      expect(await failuresWith(now ?? {})).toEqual(['database', 'bucket']);
      await drain(null);
    });
  }

  it('a MongoDB connection alternates users the same way: 0 failures, its old sessions are not told, the old user refused once done', async () => {
    const w = await world('mongodb');
    const { before, runningApp, steps } = await gracefulRotate(w, platform('cloudflare'));
    expect(before.MONGODB_URI).toBeDefined();
    expect(runningApp.failures).toEqual([]);
    expect(runningApp.attempts).toBeGreaterThanOrEqual(steps + 3);
    expect(await rotationOf(w.s, w.paths[0] as string)).toMatchObject({ state: 'done', old_sessions: null });
    expect(await failuresWith(before)).toEqual(['database', 'bucket']);
  });
});
