/** The Activity record (contract §13): a project's changes and an account's own events. */
import { apiRoute, json, z } from '../lib/openapi';
import {
  ACTIVITY_PAGE,
  accountActivityQuery,
  activityPage,
  projectActivityQuery,
} from '../use-cases/activity/read';
import { rowsRead } from '../use-cases/caller/declared-reads';
import { declaredRoutes, declareInputReads } from './declared-reads';
import { ProjectParam } from './shared';

const EventSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({
      type: z.enum(['account', 'api_key', 'operator', 'system']),
      id: z.string(),
      email: z.string().optional(),
      name: z.string().optional(),
    }),
    via: z.enum(['api', 'console', 'cli', 'system']),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string(), name: z.string().nullable() }),
    project_id: z.string().nullable(),
    site_id: z.string().optional(),
    ip: z.string().optional(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('ActivityEvent');

const PageSchema = z.object({ events: z.array(EventSchema), next_cursor: z.string().nullable() });

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(ACTIVITY_PAGE.max).default(ACTIVITY_PAGE.default),
  cursor: z.string().max(40).optional(),
});

export const activityRoutes = declaredRoutes();

type Filter = Parameters<typeof projectActivityQuery>[2];
/** A page of the project's events, at read. */
const projectPage = declareInputReads({ role: 'read' }, ({ http, project }, filter: Filter) => ({
  answer: rowsRead(projectActivityQuery(http, project, filter)),
}));
type Page = Parameters<typeof accountActivityQuery>[2];
/** A page of the calling account's own events. */
const accountPage = declareInputReads({ role: 'account' }, ({ http, account }, page: Page) => ({
  answer: rowsRead(accountActivityQuery(http, account, page)),
}));

activityRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/activity',
    tags: ['activity'],
    summary: "The project's changes, newest first (read role)",
    request: {
      params: ProjectParam,
      query: PageQuery.extend({
        action: z
          .string()
          .max(100)
          .optional()
          .openapi({ description: 'an action, or a resource for all its verbs' }),
        site_id: z
          .string()
          .max(100)
          .optional()
          .openapi({ description: 'a site of the project: its id or slug' }),
      }),
    },
    middleware: projectPage.middleware,
    responses: { 200: json(PageSchema, 'a page of events') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const filter = { limit: q.limit, cursor: q.cursor, action: q.action, site: q.site_id };
    const { answer } = await projectPage.run(c, filter);
    return c.json(activityPage(answer, q.limit), 200);
  },
);

activityRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/account/activity',
    tags: ['accounts'],
    summary: "The account's own events: sign-ins and token changes, newest first",
    request: { query: PageQuery },
    middleware: accountPage.middleware,
    responses: { 200: json(PageSchema, 'a page of events') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const { answer } = await accountPage.run(c, q);
    return c.json(activityPage(answer, q.limit), 200);
  },
);
