/**
 * The worlds of one run, started side by side. vitest runs each project's global set-up only after
 * the previous one's has returned, so the worlds used to start one after another (27 s before the
 * first file ran); now the first set-up of a run starts every world its projects need at once and
 * each set-up waits for its own. `integration` and `integration-proxied` share one workerd stack
 * (vitest runs one project's files after the other's, and their files use a stack alike); the cron
 * project has one per worker (test/cron-stack.ts); `in-process` has the node world. The first
 * teardown stops them all at once.
 */
import type { TestProject, Vitest } from 'vitest/node';
import { CRON_PROJECT } from './cron-files';
import { chromiumExecutable } from './helpers/browser';
import { IN_PROCESS_PROJECT } from './in-process-files';
import { startNodeWorld } from './node-world';
import { startWorkerdStack } from './workerd-world';
import { provideWorld } from './world-setup';

/** The node world, the workerd stack the integration projects share, the cron project's stacks. */
type WorldName = 'node' | 'workerd' | 'cron';

/** A started world: hands a project its values, and stops. */
interface World {
  provide(project: TestProject): void;
  stop(): Promise<void>;
}

/** The worlds of the run by name, and their stopping once begun. */
interface Run {
  worlds: Map<WorldName, Promise<World>>;
  stopping?: Promise<void>;
}

function worldName(project: TestProject): WorldName {
  if (project.name === IN_PROCESS_PROJECT) return 'node';
  return project.name === CRON_PROJECT ? 'cron' : 'workerd';
}

async function startWorld(name: WorldName, project: TestProject): Promise<World> {
  if (name === 'node') {
    const world = await startNodeWorld();
    return {
      provide(p) {
        provideWorld(p, world.values);
        p.provide('objectBindings', world.objectBindings);
      },
      stop: world.stop,
    };
  }
  // The packaged Chromium is unpacked here, once, while the stacks start, so the end-to-end
  // files running side by side find it ready.
  const count = name === 'cron' ? project.config.maxWorkers : 1;
  const [stacks] = await Promise.all([
    startAll(count, () => startWorkerdStack({ cron: name === 'cron' })),
    chromiumExecutable(),
  ]);
  const [first, ...rest] = stacks.map((s) => s.values);
  if (!first) throw new Error(`project ${project.name} has no worker to start a stack for`);
  return {
    provide(p) {
      provideWorld(p, first);
      if (name === 'cron') p.provide('cronWorlds', [first, ...rest]);
    },
    async stop() {
      await Promise.all(stacks.map((s) => s.stop()));
    },
  };
}

/** `count` started side by side; if one fails, those that started are stopped again. */
async function startAll<T extends { stop(): Promise<void> }>(
  count: number,
  start: () => Promise<T>,
): Promise<T[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, start));
  const failed = settled.find((s) => s.status === 'rejected');
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (!failed) return started;
  await Promise.allSettled(started.map((s) => s.stop()));
  throw failed.reason;
}

/** The world of `project` in `run`, started now if it is not yet. */
function worldOf(run: Run, project: TestProject): Promise<World> {
  const name = worldName(project);
  let world = run.worlds.get(name);
  if (!world) {
    world = startWorld(name, project);
    // Awaited by its project's set-up; a failure before then is reported there, not as unhandled.
    world.catch(() => undefined);
    run.worlds.set(name, world);
  }
  return world;
}

/** The run's projects that have a world: those with a global set-up and a file in this run. */
function projectsOfRun(vitest: Vitest): TestProject[] {
  const paths = vitest.state.getPaths();
  return vitest.projects.filter(
    (p) => p.config.globalSetup.length > 0 && paths.some((path) => p.matchesTestGlob(path)),
  );
}

/** Stops every world that started, at once. */
function stopAll(run: Run): Promise<void> {
  run.stopping ??= (async () => {
    const worlds = await Promise.allSettled(run.worlds.values());
    await Promise.all(worlds.map((w) => (w.status === 'fulfilled' ? w.value.stop() : undefined)));
  })();
  return run.stopping;
}

/** The run, kept on globalThis: each project loads its global set-up's modules anew. */
const RUN = Symbol.for('tether.test-worlds');

/**
 * A project's global set-up: starts the run's worlds if it is the first, hands `project` its
 * world's values, and answers the teardown.
 */
export async function setUpWorld(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [RUN]?: Run };
  let run = holder[RUN];
  if (!run) {
    const fresh: Run = { worlds: new Map() };
    for (const p of projectsOfRun(project.vitest)) worldOf(fresh, p);
    run = holder[RUN] = fresh;
  }
  try {
    (await worldOf(run, project)).provide(project);
  } catch (err) {
    await stopAll(run);
    throw err;
  }
  return () => stopAll(run);
}
