/** The Durable Object and Queue bindings of the Worker's environment, checked to be there once per isolate. */
import { z } from 'zod';
import { type Bindings, EnvironmentError } from './config';

/** A Durable Object namespace binding, as far as its use here needs. */
const durableObjectNamespace = z.custom<DurableObjectNamespace>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as DurableObjectNamespace).idFromName === 'function' &&
    typeof (v as DurableObjectNamespace).get === 'function',
);

/** A Queue producer binding. */
const queueProducer = z.custom<Queue>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Queue).send === 'function' &&
    typeof (v as Queue).sendBatch === 'function',
);

const BindingsSchema = z.object({
  ONE_TIME_CODES: durableObjectNamespace,
  RATE_COUNTERS: durableObjectNamespace,
  PROVISIONING: queueProducer,
});

/** The Durable Object and Queue bindings, checked to be there. */
export type CheckedBindings = Pick<Bindings, 'ONE_TIME_CODES' | 'RATE_COUNTERS' | 'PROVISIONING'>;

/** Checks the Durable Object and Queue bindings; throws an EnvironmentError naming each one missing. */
export function loadBindings(env: Bindings): CheckedBindings {
  const parsed = BindingsSchema.safeParse(env);
  if (!parsed.success) throw new EnvironmentError(parsed.error.issues.map((i) => i.path.join('.')));
  return {
    ONE_TIME_CODES: env.ONE_TIME_CODES,
    RATE_COUNTERS: env.RATE_COUNTERS,
    PROVISIONING: env.PROVISIONING,
  };
}
