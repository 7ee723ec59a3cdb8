/**
 * What the Worker imports from `cloudflare:workers`, for Node: vitest.config.ts aliases the
 * module to this file in the projects that run the Worker in process. The Durable Object base
 * class only keeps its state and environment, as workerd's does; ./durable-objects.ts runs the
 * objects.
 */

/** workerd's Durable Object base class: `ctx` (the object's state and storage) and `env`. */
export class DurableObject<Env = unknown> {
  constructor(
    protected readonly ctx: DurableObjectState,
    protected readonly env: Env,
  ) {}
}

/** workerd's base for RPC values passed by reference; plain objects here. */
export class RpcTarget {}

/** workerd's named entry point base class: `ctx` and `env`, as for objects. */
export class WorkerEntrypoint<Env = unknown> {
  constructor(
    protected readonly ctx: ExecutionContext,
    protected readonly env: Env,
  ) {}
}
