/**
 * A connection's rotation (docs/contract.md §14): `GET …/connections/:kind/:resourceId/rotation`,
 * read with the site in one round trip.
 */
import type { Kind } from '../domain/levels';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, z } from '../lib/openapi';
import { read } from '../use-cases/caller/declared-reads';
import { ROTATION_STATES, rotationOf, rotationQuery } from '../use-cases/connections/rotation-state';
import { findConnection } from '../use-cases/connections/site-plans';
import { OneParams } from './connections';
import { declaredRoutes, declareReads } from './declared-reads';
import { siteNeed, siteRead } from './site-reads';

const stamp = z.string().datetime().nullable();
/** The rotation object. */
const RotationSchema = z
  .object({
    state: z.enum(ROTATION_STATES),
    immediate: z.boolean(),
    started_at: stamp,
    live_at: stamp.openapi({
      description: 'when the patch with the new secret was confirmed where the app runs',
    }),
    retired_at: stamp.openapi({ description: 'when the old secret stopped working' }),
    retires_by: stamp.openapi({
      description:
        "the latest the old secret works (started_at + ROTATION_GRACE_SECONDS, or the rotate's grace_seconds)",
    }),
    old_sessions: z.number().int().nullable().openapi({
      description: "the old login's open sessions at the last look; null where the system does not tell",
    }),
  })
  .openapi('Rotation');

export const rotationRoutes = declaredRoutes();
const tags = ['connections'];

/** The site with its connections, and the rotation of the connection the path names, at read. */
const rotationRead = declareReads(siteNeed('read'), (scope) => ({
  ...siteRead(scope),
  rotation: read(rotationQuery(scope.http, scope.path), rotationOf),
}));

rotationRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotation',
    tags,
    middleware: rotationRead.middleware,
    summary: "The connection's latest rotation: delivering, draining (old sessions, deadline), done",
    description:
      'docs/contract.md §14: `none` before any rotation; `delivering` until the live patch with the new secret is `live` where the app runs; `draining` until the old credential has no session left (`old_sessions`; null where the system does not tell) or `retires_by`; then `done` (the old secret is refused). An immediate rotation is `done` at once.',
    request: { params: OneParams },
    responses: {
      200: json(RotationSchema, 'the rotation'),
      ...errorResponses(),
    },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { site, rotation } = rotationRead.of(c);
    if (!findConnection(site, params.kind as Kind, params.resourceId))
      throw new ApiError('NOT_FOUND', `${params.kind} connection not found`);
    return c.json(rotation, 200);
  },
);
