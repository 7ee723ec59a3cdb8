/**
 * Route building blocks: every route is an OpenAPI route, validated by zod, whose validation
 * failures become 400 `VALIDATION_FAILED` naming the field.
 */
import { createRoute, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { ApiError } from './errors';

/** Formats a zod issue path as `a.b[0].c`. */
function fieldOf(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );
}

/** Turns a zod error into the API's 400 naming the first offending field. */
export function validationError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue ? fieldOf(issue.path) : '';
  const message = issue ? `${field || 'body'}: ${issue.message}` : 'invalid request';
  return new ApiError('VALIDATION_FAILED', message, field || undefined);
}

/** A route-group app whose validation failures become the API's 400. */
export function routeGroup<E extends Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}

/** A JSON response entry of a route's `responses`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

/** The path of the first string (or key) in `value` holding a NUL character, or null. */
function nulPath(value: unknown, path: PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value !== null && typeof value === 'object'
      ? Object.entries(value)
      : [];
  for (const [key, v] of entries) {
    if (typeof key === 'string' && key.includes('\0')) return [...path, key];
    const found = nulPath(v, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * A required JSON request body. No text in it may hold a NUL character: Postgres cannot store
 * one, and no name, secret or variable value needs it.
 */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: {
    content: {
      'application/json': {
        schema: schema.superRefine((value, ctx) => {
          const path = nulPath(value);
          if (path) ctx.addIssue({ code: 'custom', path, message: 'may not contain NUL characters' });
        }),
      },
    },
    required: true,
  },
});

/** Any JSON object, for responses documented in prose. */
export const anyObject = z.record(z.string(), z.unknown());

/** Declares a route with the Bearer security scheme. */
export function apiRoute<R extends RouteConfig>(config: R): R & { getRoutingPath(): string } {
  return createRoute({ security: [{ bearer: [] }], ...config });
}

export { z };
