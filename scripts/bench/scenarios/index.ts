/** Every scenario after the floor, in the order they run. Add new ones here. */
import type { Scenario } from '../types';
import { sitesScenario } from './sites';

/** Scenarios run after the floor. */
export const scenarios: Scenario[] = [sitesScenario];
