/** The Worker: its handlers (worker.ts) and its Durable Object classes. */
import { worker } from './worker';

export { OneTimeCodes } from './objects/one-time-codes-object';
export { RateCounter } from './objects/rate-counter';

export default worker;
