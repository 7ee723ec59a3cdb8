/** Pieces every route uses: the `:id` parameter, the request context, the activity source, ISO timestamps and the 404 of a non-uuid id. */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { NOT_UUID_SHAPED, SERVICE_NAME_RE, SLUG_RE } from '../domain/names';
import { ApiError } from '../lib/errors';
import { isUuid } from '../lib/ids';
import { apiRoute, json, z } from '../lib/openapi';
import type { RequestContext } from '../request-context';

/** A service's (or principal's) name, as every kind's creation takes it; never shaped like a UUID. */
export const ServiceName = z
  .string()
  .regex(SERVICE_NAME_RE, '1 to 63 of a-z 0-9 - _, starting with a letter')
  .refine((name) => !isUuid(name), NOT_UUID_SHAPED);

/** A new project's or site's slug; never shaped like a UUID. */
export const NewSlug = z
  .string()
  .regex(SLUG_RE, 'lower-case letters, digits and -, 1 to 63')
  .refine((slug) => !isUuid(slug), NOT_UUID_SHAPED);

/** `:id`, a project id or slug. */
export const ProjectParam = z.object({ id: z.string().min(1) });

/** A GET under `/projects/{id}` that answers one list, `{ [key]: item[] }`, with its 200's words. */
export function projectListingRoute<K extends string, T extends z.ZodType>(listing: {
  path: `/projects/{id}/${string}`;
  tag: string;
  summary: string;
  middleware: MiddlewareHandler<AppEnv>[];
  key: K;
  item: T;
  listed: string;
}) {
  const answer = z.object({ [listing.key]: z.array(listing.item) } as { [P in K]: z.ZodArray<T> });
  return apiRoute({
    method: 'get' as const,
    path: listing.path,
    tags: [listing.tag],
    summary: listing.summary,
    middleware: listing.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(answer, listing.listed) },
  });
}

/** The request's {@link RequestContext}, what its services take first (built once, container.ts openRequest). */
export const requestContext = (c: Context<AppEnv>): RequestContext => c.get('ctx');

/** A timestamp as ISO 8601 UTC. */
export const iso = (date: Date): string => date.toISOString();

/** Throws 404 unless `value` is a uuid (ids in paths that are not uuids name nothing). */
export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new ApiError('NOT_FOUND', `${what} not found`);
  return value.toLowerCase();
}
