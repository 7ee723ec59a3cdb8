/** Every scenario after the floor, in the order they run. Add new ones here. */
import { consoleWeightScenario } from '../console-weight';
import type { Scenario } from '../types';
import { connectionsPutScenario } from './connections-put';
import { oauthExchangeScenario } from './oauth-exchange';
import { oauthIdTokenScenario } from './oauth-id-token';
import { pgConnectScenario } from './pg-connect';
import { pgParallelScenario } from './pg-parallel';
import { readsScenario } from './reads';

/** Scenarios run after the floor. */
export const scenarios: Scenario[] = [
  readsScenario,
  connectionsPutScenario,
  pgConnectScenario,
  pgParallelScenario,
  oauthExchangeScenario,
  oauthIdTokenScenario,
  consoleWeightScenario,
];
