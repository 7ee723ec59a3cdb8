import {
  allLevels,
  type DesiredLevel,
  isKind,
  isLevelOf,
  type Kind,
  kindNames,
  type LevelOf,
  levelsOf,
} from '../domain/levels';
import { kindOf } from '../kinds/registry';
import { z } from '../lib/openapi';

/*
 * Requests are checked against the kinds registered when they arrive; the document lists those
 * registered when this module loads (the registry's own, and any plugin in its list).
 */
const ALL_LEVELS = allLevels();

/** The 400 message of a kind that is not one registered now (missing, not text, or unknown), as an enum's. */
const notAKind = () =>
  `Invalid option: expected one of ${kindNames()
    .map((k) => JSON.stringify(k))
    .join('|')}`;

/** A kind's name: one registered now, else a 400 naming those that are. */
const kindName = () =>
  z
    .string({ error: notAKind })
    .refine(isKind, { error: notAKind })
    .openapi({ enum: kindNames() }) as unknown as z.ZodType<Kind, string>;

/**
 * The document's statement that an object's `level` is one of its `kind`'s levels (JSON Schema:
 * one alternative per kind, each naming its kind and its levels).
 */
const LEVEL_PER_KIND = {
  oneOf: kindNames().map((kind) => ({
    type: 'object' as const,
    properties: {
      kind: { type: 'string' as const, enum: [kind] },
      level: { type: 'string' as const, enum: [...levelsOf(kind)] },
    },
  })),
};

/** The connection object every connection route answers. */
export const ConnectionSchema = z
  .object({
    site_id: z.string().openapi({ format: 'uuid' }),
    site_slug: z.string(),
    kind: kindName(),
    resource_id: z.string(),
    resource_name: z
      .string()
      .openapi({ description: "the database's or bucket's name; an auth app's app_id" }),
    level: z.enum(ALL_LEVELS as [string, ...string[]]),
    env_names: z.array(z.string()).openapi({
      description: 'exact variable names injected for this connection; names only, never values',
    }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Connection', LEVEL_PER_KIND);

/** An entry of a site's `available` list: what connecting a service would add. */
export const AvailableSchema = z
  .object({
    kind: kindName(),
    resource_id: z.string(),
    resource_name: z.string(),
    levels: z.array(z.enum(ALL_LEVELS as [string, ...string[]])).openapi({ description: 'weakest first' }),
    env_names: z.array(z.string()).openapi({ description: 'the names connecting it would add' }),
  })
  .openapi('AvailableConnection', {
    oneOf: kindNames().map((kind) => ({
      type: 'object' as const,
      properties: {
        kind: { type: 'string' as const, enum: [kind] },
        levels: { type: 'array' as const, items: { type: 'string' as const, enum: [...levelsOf(kind)] } },
      },
    })),
  });

/** A level of `kind` in an answer: the document names the kind's levels (the value is typed as a string). */
export const levelEnum = (kind: Kind) => z.string().openapi({ enum: [...levelsOf(kind)] });

/** A level of `kind` or null (not connected) in an answer. */
export const nullableLevelEnum = (kind: Kind) =>
  z
    .string()
    .nullable()
    .openapi({ enum: [...levelsOf(kind), null] });

/** The name of `kind`'s variant of a schema in the document: `Database…`, `Bucket…`, `AuthApp…`. */
export const kindSchemaName = (kind: Kind, suffix: string): string =>
  `${kind.replace(/(^|_)([a-z])/g, (_, __, ch: string) => ch.toUpperCase())}${suffix}`;

/**
 * Fields of the objects a GET returns that a request may carry back unchanged: ignored, so a
 * client can PUT what it read; every other unknown field is still refused (a typo is a 400).
 */
export const readOnlyFields = <K extends string>(...names: K[]) =>
  Object.fromEntries(
    names.map((n) => [n, z.unknown().optional().openapi({ description: 'read-only; ignored' })]),
  ) as Record<K, z.ZodOptional<z.ZodUnknown>>;

/** A kind path or body field; an unknown kind is a 400. */
export const KindSchema = kindName().openapi({ description: 'database, bucket or auth_app' });

/** A level field; `desiredLevel` and `levelOfKind` check it against its kind. */
export const LevelSchema = z.string().max(32).openapi({
  enum: ALL_LEVELS,
  description:
    'database: read-only | connect (default); bucket: read | read-write (default); auth_app: client (default) | admin',
});

type RefinementContext = z.core.$RefinementCtx;

/**
 * `level` as a level of `kind`, or an issue on `path` answered as 400 BAD_REQUEST naming the
 * kind's levels (the API's body for a level the kind does not accept, spec: Errors).
 */
function checkLevel<K extends Kind>(
  kind: K,
  level: string,
  ctx: RefinementContext,
  path: PropertyKey[],
): LevelOf<K> {
  if (isLevelOf(kind, level)) return level;
  ctx.addIssue({
    code: 'custom',
    path,
    message: `a ${kindOf(kind).word} accepts the levels ${levelsOf(kind).join(', ')}`,
  });
  return z.NEVER;
}

/** The level field of a route whose path fixes the kind: a level of that kind. */
export const levelOfKind = <K extends Kind>(kind: K) =>
  LevelSchema.openapi({ enum: [...levelsOf(kind)] }).transform((level, ctx) =>
    checkLevel(kind, level, ctx, []),
  );

/**
 * A `{kind, resource_id, level?}` entry, parsed into a discriminated union by kind whose level
 * is one of that kind's: the type the planners and the credential provisioners receive.
 */
export const DesiredConnectionSchema = z
  .object({
    kind: KindSchema,
    resource_id: z.string().max(100),
    level: LevelSchema.optional(),
    ...readOnlyFields('site_id', 'site_slug', 'resource_name', 'env_names', 'created_at'),
  })
  .strict()
  .openapi(LEVEL_PER_KIND)
  .transform(({ kind, resource_id, level }, ctx) => {
    const want = { kind, level: level === undefined ? undefined : checkLevel(kind, level, ctx, ['level']) };
    return { resource_id, ...(want as DesiredLevel) };
  });
