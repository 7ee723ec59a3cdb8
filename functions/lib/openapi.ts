/**
 * Route building blocks: every route is an OpenAPI route, validated by zod, whose validation
 * failures become 400 `VALIDATION_FAILED` naming the field.
 */
import { createRoute, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, Env } from 'hono';
import { ApiError, ERROR_STATUS, type ErrorCode } from './errors';

/** Formats a zod issue path as `a.b[0].c`. */
function fieldOf(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );
}

/**
 * Turns a zod error into the API's 400 naming the first offending field. Every request that
 * fails its schema (a level its kind does not accept included) is VALIDATION_FAILED, the one
 * code of a body that fails validation; BAD_REQUEST is left for well-formed requests a rule refuses.
 */
export function validationError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue ? fieldOf(issue.path) : '';
  const message = issue ? `${field || 'body'}: ${issue.message}` : 'invalid request';
  return new ApiError('VALIDATION_FAILED', message, field || undefined);
}

/**
 * A route-group app whose validation failures become the API's 400; `beforeInvalid`, when
 * given, runs first (what a request earns before its 400: its caller's refusals).
 */
export function routeGroup<E extends Env>(
  beforeInvalid?: (c: Context<E>) => Promise<unknown> | undefined,
): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const before = beforeInvalid?.(c);
      if (!before) throw validationError(result.error);
      return before.then(() => {
        throw validationError(result.error);
      });
    },
  });
}

/**
 * The validation hook of a route whose handler first finds what its path names (a site, a
 * service, an auth app): a request that fails validation gets that lookup's 404 or 403 first,
 * as a valid one would, and only then its 400. A valid request pays nothing for it.
 */
export function pathBeforeBody<E extends Env>(lookup: (c: Context<E>) => Promise<unknown>) {
  return (result: { success: boolean; error?: z.ZodError }, c: Context<E>): Promise<never> | undefined => {
    if (result.success) return undefined;
    return lookup(c).then(() => {
      throw validationError(result.error as z.ZodError);
    });
  };
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

/** The management API's error body. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z
        .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
        .openapi({ example: 'VALIDATION_FAILED' }),
      message: z.string(),
      field: z.string().optional().openapi({ description: 'the offending field, when there is one' }),
    }),
  })
  .openapi('Error');

/** What each error status of the management API means, for the OpenAPI document. */
const ERROR_MEANINGS = {
  400: 'invalid request: the message names the field',
  401: 'no credentials, or unknown, revoked or expired ones',
  403: 'the role or key may not do this',
  404: 'no such project, or no such resource in it',
  409: 'conflict with the current state (the message says which)',
  503: 'an outside system (database cluster, IAM) could not be reached; nothing changed',
} as const;

/** Error responses of a route: 400, 401, 403 and 404 for every route, plus `extra` (409, 503). */
export function errorResponses(...extra: Array<409 | 503>) {
  const codes = [400, 401, 403, 404, ...extra] as const;
  return Object.fromEntries(codes.map((code) => [code, json(ErrorSchema, ERROR_MEANINGS[code])]));
}

/**
 * Declares a route with the Bearer security scheme; its error responses default to
 * {@link errorResponses}() (a route lists its own to add 409 or 503).
 */
export function apiRoute<R extends RouteConfig>(config: R): R & { getRoutingPath(): string } {
  return createRoute({
    security: [{ bearer: [] }],
    ...config,
    responses: { ...errorResponses(), ...config.responses },
  });
}

export { z };
