/**
 * A project's health (`GET /projects/:id/health`, read): the sites whose live patches are
 * failing and the rotations not yet done, read with the caller in one round trip.
 */
import { CREDENTIAL_KIND_NAMES } from '../kinds/registry';
import { apiRoute, json, z } from '../lib/openapi';
import { read } from '../use-cases/caller/declared-reads';
import { projectHealthOf, projectHealthQuery } from '../use-cases/project-health';
import { declaredRoutes, declareReads } from './declared-reads';
import { ProjectParam } from './shared';

const stamp = z.string().datetime();
const HealthSchema = z
  .object({
    deliveries: z.array(
      z.object({
        site_id: z.string(),
        site_slug: z.string(),
        failed: z.number().int().openapi({ description: 'live patches that failed a try and are retried' }),
        dead: z
          .number()
          .int()
          .openapi({ description: 'live patches that gave up (`Retry` sends them again)' }),
        last_error: z.string().nullable().openapi({ description: "the newest failing patch's error" }),
        latest_at: stamp.openapi({ description: 'when the newest failing patch was made' }),
      }),
    ),
    rotations: z.array(
      z.object({
        site_id: z.string(),
        site_slug: z.string(),
        kind: z.enum(CREDENTIAL_KIND_NAMES),
        resource_id: z.string(),
        resource_name: z
          .string()
          .nullable()
          .openapi({ description: "the service's name; null once it is gone" }),
        state: z.enum(['delivering', 'draining']),
        started_at: stamp,
        live_at: stamp.nullable(),
        retires_by: stamp.nullable(),
        old_sessions: z.number().int().nullable(),
      }),
    ),
  })
  .openapi('ProjectHealth');

export const projectHealthRoutes = declaredRoutes();

/** The project's failing deliveries and open rotations, at read (not for project API keys, as a site's deliveries). */
const health = declareReads(
  {
    role: 'read',
    keyRefusal: "project API keys cannot read a project's health (its sites' deliveries and rotations)",
  },
  ({ http, path }) => ({ health: read(projectHealthQuery(http, path.id ?? ''), projectHealthOf) }),
);

projectHealthRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/health',
    tags: ['projects'],
    summary: 'What needs attention: sites whose live patches fail, rotations not yet done',
    description:
      "`deliveries`: one entry per site with live patches that failed a try (`failed`, retried) or gave up (`dead`), newest first; the site's `GET …/deliveries` lists them. `rotations`: every rotation not yet `done` (docs/contract.md §14), `delivering` until the new secret's patch is live, then `draining` until the old secret is retired; `GET …/connections/:kind/:resourceId/rotation` follows one.",
    middleware: health.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(HealthSchema, "the project's health") },
  }),
  async (c) => c.json(health.of(c).health, 200),
);
