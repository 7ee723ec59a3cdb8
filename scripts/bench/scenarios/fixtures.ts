/** Setup helpers shared by scenarios: services and sites made through the HTTP API. */

import type { Kind } from '../../../functions/domain/levels';
import { type BenchApi, inParallel } from '../setup-client';

/** How many setup requests run at once (the machine has 2 cores; CREATE DATABASE is heavy). */
const SETUP_PARALLEL = 4;

/** Creates `count` PostgreSQL databases named `<prefix><n>`; returns their ids in order. */
export async function createDatabases(
  api: BenchApi,
  projectId: string,
  count: number,
  prefix = 'db',
): Promise<string[]> {
  const made = await inParallel(
    Array.from({ length: count }, (_, i) => i),
    SETUP_PARALLEL,
    (i) =>
      api.call<{ id: string }>('POST', `/api/v1/projects/${projectId}/databases`, {
        name: `${prefix}${i}`,
        engine: 'postgresql',
      }),
  );
  return made.map((d) => d.id);
}

/** Creates `count` buckets named `<prefix><n>`; returns their ids in order. */
export async function createBuckets(
  api: BenchApi,
  projectId: string,
  count: number,
  prefix = 'bucket',
): Promise<string[]> {
  const made = await inParallel(
    Array.from({ length: count }, (_, i) => i),
    SETUP_PARALLEL,
    (i) =>
      api.call<{ id: string }>('POST', `/api/v1/projects/${projectId}/buckets`, { name: `${prefix}${i}` }),
  );
  return made.map((b) => b.id);
}

/** Creates `count` sites named `<prefix>-<n>`; returns their ids in order. */
export async function createSites(
  api: BenchApi,
  projectId: string,
  count: number,
  prefix = 'site',
): Promise<string[]> {
  const made = await inParallel(
    Array.from({ length: count }, (_, i) => i),
    SETUP_PARALLEL,
    (i) =>
      api.call<{ id: string }>('POST', `/api/v1/projects/${projectId}/sites`, { slug: `${prefix}-${i}` }),
  );
  return made.map((s) => s.id);
}

/** The connections path of a site. */
export const connectionsPath = (projectId: string, siteId: string): string =>
  `/api/v1/projects/${projectId}/sites/${siteId}/connections`;

/** One entry of a PUT .../connections body. */
export interface DesiredConnection {
  kind: Kind;
  resource_id: string;
  level?: string;
}
