/**
 * A Fly Machine reads the app's secrets when it starts, so a change is live there only once each
 * running Machine restarted with them (docs/contract.md §14). Each step is a call or two and no
 * waiting beyond Fly's own short wait: the consumer takes the next one from a delayed queue message.
 *
 * 1. `list`: `GET /v1/apps/{app_name}/machines`; no Machine (none running the app) is live at
 *    once; else the first is updated as in 2.
 * 2. `update` Machine i: read it (`GET …/machines/{id}`) and update it with its current `config`
 *    (`POST …/machines/{id}` with `{config}`); a stopped or suspended Machine is updated with
 *    `skip_launch` (it takes the secrets when it next starts) and the next one follows; a Machine
 *    gone since the list is passed over.
 * 3. `wait` Machine i: `GET …/machines/{id}/wait?instance_id=…&state=started&timeout=1` until
 *    200 (408: not yet, checked again after a delay); then Machine i+1, or live after the last.
 */
import { at, failure, ok, type PlatformAnswer, seg } from './http';
import { type DeliverOutcome, FollowUpFailed, type PlatformUrls, type StoredTarget } from './target-adapter';

/** A Fly target's public fields. */
export type FlyConfig = { app_name: string };

/** The calls the steps make: one request to Fly with the target's token. */
export type FlySend = (method: string, url: string, body?: unknown) => Promise<PlatformAnswer>;

/** Where the Machines' restart stands. */
type MachinesState =
  | { phase: 'list' }
  | { phase: 'update'; machines: string[]; index: number }
  | { phase: 'wait'; machines: string[]; index: number; instanceId: string; polls: number };

/** The first step after the secrets are set. */
export const MACHINES_FIRST: MachinesState = { phase: 'list' };

/** Checks of one Machine before it counts as stuck (about 10 minutes with the delays below). */
const MAX_POLLS = 30;

/** Seconds before the n-th further check of a Machine: 2, 4, 8, then every 20. */
const pollDelay = (polls: number): number => Math.min(20, 2 ** Math.max(1, polls));

/** States in which a Machine runs nothing and restarts nothing when updated. */
const RESTING = new Set(['stopped', 'suspended', 'created']);
/** States of a Machine that is going or gone. */
const GONE = new Set(['destroyed', 'destroying']);

interface Machine {
  id: string;
  state?: string;
  config?: unknown;
  instance_id?: string;
}

const messageOf = (answer: PlatformAnswer): string | undefined => {
  const error = (answer.body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
};

const machinesUrl = (urls: PlatformUrls, c: FlyConfig, path = '') =>
  at(urls.fly, `/v1/apps/${seg(c.app_name)}/machines${path}`);

function parse(state: unknown): MachinesState {
  const s = state as Partial<Record<string, unknown>> | null;
  const machines = Array.isArray(s?.machines)
    ? (s.machines as unknown[]).filter((m) => typeof m === 'string')
    : [];
  const index = typeof s?.index === 'number' ? s.index : 0;
  if (s?.phase === 'update' && machines.length > 0) return { phase: 'update', machines, index };
  if (s?.phase === 'wait' && machines.length > 0 && typeof s.instanceId === 'string')
    return {
      phase: 'wait',
      machines,
      index,
      instanceId: s.instanceId,
      polls: typeof s.polls === 'number' ? s.polls : 0,
    };
  return MACHINES_FIRST;
}

/** After Machine `index` is done: the next one, or live after the last. */
function after(machines: string[], index: number): DeliverOutcome {
  if (index + 1 >= machines.length) return { live: true };
  return { live: false, next: { state: { phase: 'update', machines, index: index + 1 }, delaySeconds: 0 } };
}

/** Updates `machine` with its current config; the step that follows it. */
async function update(
  urls: PlatformUrls,
  c: FlyConfig,
  send: FlySend,
  machine: Machine,
  machines: string[],
  index: number,
): Promise<DeliverOutcome> {
  const resting = RESTING.has(machine.state ?? '');
  const body = resting ? { config: machine.config, skip_launch: true } : { config: machine.config };
  const answer = await send('POST', machinesUrl(urls, c, `/${seg(machine.id)}`), body);
  if (!ok(answer)) throw failure('Fly', answer, messageOf(answer));
  if (resting) return after(machines, index);
  const instanceId = (answer.body as { instance_id?: unknown }).instance_id;
  if (typeof instanceId !== 'string')
    throw new Error(`Fly answered the update of Machine ${machine.id} without an instance_id`);
  return {
    live: false,
    next: { state: { phase: 'wait', machines, index, instanceId, polls: 0 }, delaySeconds: 0 },
  };
}

/** One step of restarting the app's Machines with its secrets. */
export async function machinesStep(
  urls: PlatformUrls,
  target: StoredTarget<FlyConfig>,
  send: FlySend,
  state: unknown,
): Promise<DeliverOutcome> {
  const step = parse(state);
  const c = target.config;
  if (step.phase === 'list') {
    const listed = await send('GET', machinesUrl(urls, c));
    if (!ok(listed)) throw failure('Fly', listed, messageOf(listed));
    const all = (Array.isArray(listed.body) ? listed.body : []) as Machine[];
    const machines = all.filter((m) => typeof m.id === 'string' && !GONE.has(m.state ?? ''));
    const first = machines[0];
    if (!first) return { live: true };
    return update(
      urls,
      c,
      send,
      first,
      machines.map((m) => m.id),
      0,
    );
  }
  const id = step.machines[step.index] as string;
  if (step.phase === 'update') {
    const read = await send('GET', machinesUrl(urls, c, `/${seg(id)}`));
    if (read.status === 404) return after(step.machines, step.index);
    if (!ok(read)) throw failure('Fly', read, messageOf(read));
    const machine = read.body as Machine;
    if (GONE.has(machine.state ?? '')) return after(step.machines, step.index);
    return update(urls, c, send, { ...machine, id }, step.machines, step.index);
  }
  const query = new URLSearchParams({ instance_id: step.instanceId, state: 'started', timeout: '1' });
  const waited = await send('GET', machinesUrl(urls, c, `/${seg(id)}/wait?${query}`));
  if (ok(waited)) return after(step.machines, step.index);
  if (waited.status !== 408) throw failure('Fly', waited, messageOf(waited));
  const polls = step.polls + 1;
  if (polls >= MAX_POLLS)
    throw new FollowUpFailed(`Fly Machine ${id} was not started after ${MAX_POLLS} checks`, MACHINES_FIRST);
  return { live: false, next: { state: { ...step, polls }, delaySeconds: pollDelay(polls) } };
}
