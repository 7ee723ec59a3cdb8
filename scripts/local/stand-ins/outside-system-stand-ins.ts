/** The outside systems' stand-ins `npm start` runs, one line each (outside-system-stand-in.ts). */
import { mongodbStandIn } from './mongodb-system-stand-in';
import type { OutsideSystemStandIn } from './outside-system-stand-in';
import { storageStandIn } from './storage-system-stand-in';

/** Every outside system's stand-in, in the order they start. */
export const OUTSIDE_SYSTEM_STAND_INS: readonly OutsideSystemStandIn[] = [mongodbStandIn, storageStandIn];
