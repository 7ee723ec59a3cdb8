/** An account's dashboard sessions: open, list, end one, end all (contract §3). */
import { ApiError } from '../lib/errors';
import { apiRoute, json, z } from '../lib/openapi';
import {
  endAllDashboardSessions,
  endDashboardSession,
  endDashboardSessionById,
  listDashboardSessions,
  openDashboardSession,
} from '../use-cases/account-sessions';
import { rowsRead } from '../use-cases/caller/declared-reads';
import { requireAccount } from '../use-cases/caller/project-access';
import { declaredRoutes, declareReads } from './declared-reads';
import { requestContext } from './shared';

export const accountSessionsRoutes = declaredRoutes();

/** An account caller. */
const account = declareReads({ role: 'account' });
/** The calling account's live dashboard sessions. */
const sessionsRead = declareReads({ role: 'account' }, ({ http, account }) => ({
  rows: rowsRead(listDashboardSessions(http, account)),
}));

accountSessionsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/account/sessions',
    tags: ['accounts'],
    summary: 'Open a dashboard session (accepted as Bearer and as the console cookie)',
    middleware: account.middleware,
    responses: { 201: json(z.object({ token: z.string(), expires_at: z.string() }), 'the session') },
  }),
  async (c) => {
    const principal = c.get('principal');
    const accountId = requireAccount(principal, 'token');
    if (principal.type !== 'account') throw new ApiError('UNAUTHORIZED');
    const { token, expiresAt } = await openDashboardSession(requestContext(c), {
      accountId,
      mintedBy: principal.tokenId,
    });
    return c.json({ token, expires_at: expiresAt.toISOString() }, 201);
  },
);

accountSessionsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/session',
    tags: ['accounts'],
    summary: "End the calling dashboard session (the console's Sign out)",
    middleware: account.middleware,
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'the session no longer works') },
  }),
  async (c) => {
    const principal = c.get('principal');
    const { accountId } = account.of(c);
    if (principal.type !== 'account' || principal.via !== 'session') {
      throw new ApiError(
        'FORBIDDEN',
        'only a dashboard session can end itself; revoke an account token by its id',
      );
    }
    await endDashboardSession(requestContext(c), { accountId, tokenId: principal.tokenId });
    return c.json({ revoked: true as const }, 200);
  },
);

const SessionListing = z
  .object({
    id: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    minted_by: z.string().nullable().openapi({ description: 'the account token that opened it' }),
    last_used_at: z.string().nullable().openapi({ description: 'may lag by up to an hour' }),
    current: z.boolean().openapi({ description: 'whether this request came with this session' }),
  })
  .openapi('DashboardSession');

accountSessionsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/account/sessions',
    tags: ['accounts'],
    summary: "The account's live dashboard sessions (never their tokens)",
    middleware: sessionsRead.middleware,
    responses: { 200: json(z.object({ sessions: z.array(SessionListing) }), 'oldest first') },
  }),
  async (c) => {
    const { rows } = sessionsRead.of(c);
    const principal = c.get('principal');
    const current = principal.type === 'account' ? principal.tokenId : null;
    const sessions = rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      expires_at: (row.expiresAt as Date).toISOString(),
      minted_by: row.mintedBy,
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      current: row.id === current,
    }));
    return c.json({ sessions }, 200);
  },
);

accountSessionsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/sessions/{sessionId}',
    tags: ['accounts'],
    summary: 'End one of your dashboard sessions (404 when it is unknown or already ended)',
    middleware: account.middleware,
    request: { params: z.object({ sessionId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'the session no longer works') },
  }),
  async (c) => {
    const { accountId } = account.of(c);
    await endDashboardSessionById(requestContext(c), {
      accountId,
      sessionId: c.req.valid('param').sessionId,
    });
    return c.json({ revoked: true as const }, 200);
  },
);

accountSessionsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/sessions',
    tags: ['accounts'],
    summary: 'Sign out everywhere: end every dashboard session of the account',
    middleware: account.middleware,
    responses: { 200: json(z.object({ revoked: z.number().int() }), 'how many sessions ended') },
  }),
  async (c) => {
    const { accountId } = account.of(c);
    return c.json({ revoked: await endAllDashboardSessions(requestContext(c), { accountId }) }, 200);
  },
);
