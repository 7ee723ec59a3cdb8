/**
 * GET /api/v1/kinds: every service kind and database engine the deployment registers, with the
 * words, levels and engines clients offer (the CLI and the console read it instead of a list of
 * names of their own). Public: it says what the product does, nothing of any project.
 */
import { createRoute } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { allLevels, type Level } from '../domain/levels';
import { kindCatalog } from '../kinds/catalog';
import { json, routeGroup, z } from '../lib/openapi';

/** Every level of every kind. */
const LevelSchema = z.enum(allLevels() as [Level, ...Level[]]);

const CreationField = z
  .object({
    name: z.string().openapi({ example: 'max_memory_mb' }),
    type: z.enum(['string', 'number', 'integer', 'boolean']),
    required: z.boolean(),
    choices: z
      .array(z.string())
      .optional()
      .openapi({ description: 'the values it may take, when it is one of a list' }),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  })
  .openapi('CreationField');

const Kind = z
  .object({
    kind: z.string().openapi({ example: 'database' }),
    noun: z.string().openapi({ example: 'database' }),
    plural: z.string().openapi({ example: 'databases' }),
    command_words: z
      .array(z.string())
      .openapi({ description: 'the words the CLI takes for it, its group first' }),
    levels: z.array(LevelSchema).openapi({ description: 'lowest first' }),
    level_meanings: z.record(z.string(), z.string()).openapi({
      description: 'what each level lets an app do, in words (the console shows it beside the level)',
    }),
    level_change_consequence: z
      .string()
      .nullable()
      .openapi({ description: 'what changing a connection’s level does beyond the level; asked first' }),
    own_credentials: z
      .boolean()
      .openapi({ description: 'whether its connections hold a credential of their own' }),
    engines: z
      .array(z.string())
      .nullable()
      .openapi({ description: 'the engines its services name; null when none' }),
    services_path: z.string().openapi({
      example: 'databases',
      description: 'the segment of its services’ routes under /api/v1/projects/{id}/',
    }),
    creation_fields: z.array(CreationField).nullable().openapi({
      description:
        'for a kind a plugin registers, the fields its services are made with beside `name` (its create route takes them); null for the built-in kinds, whose create routes are their own',
    }),
  })
  .openapi('Kind');

const Engine = z
  .object({
    engine: z.string().openapi({ example: 'postgresql' }),
    label: z.string().openapi({ example: 'PostgreSQL' }),
    default: z.boolean(),
    tunnel: z.boolean().openapi({ description: 'whether `tether connect --local` tunnels to its databases' }),
  })
  .openapi('Engine');

export const kindsRoutes = routeGroup<AppEnv>();

kindsRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/kinds',
    tags: ['projects'],
    security: [],
    summary: 'The service kinds and database engines this deployment offers',
    responses: {
      200: json(
        z.object({ kinds: z.array(Kind), engines: z.array(Engine) }),
        'every registered kind and engine',
      ),
    },
  }),
  (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(kindCatalog(), 200);
  },
);
