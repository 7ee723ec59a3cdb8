/** Accounts and their personal tokens (contract §3); dashboard sessions are in account-sessions.ts. */
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import {
  createAccount,
  issueAccountToken,
  listAccountTokens,
  readAccount,
  revokeAccountToken,
  TOKEN_MAX_DAYS,
} from '../use-cases/accounts';
import { read, rowsRead } from '../use-cases/caller/declared-reads';
import { declaredRoutes, declareReads } from './declared-reads';
import { requestContext } from './shared';

const AccountSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string().nullable() })
  .openapi('Account');

export const accountsRoutes = declaredRoutes();

/** An account caller. */
const account = declareReads({ role: 'account' });
/** The operator, the one caller that may create accounts. */
const operator = declareReads({ role: 'operator' });
/** An account caller, a read-only token's included: the one change such a token may make is its own revoke. */
const selfRevoke = declareReads({ role: 'account', writes: false });
/** The calling account (its 404 after the caller's refusals). */
const accountRead = declareReads({ role: 'account' }, ({ http, account }) => ({
  row: read(readAccount(http, account), ([row]) => {
    if (!row) throw new ApiError('NOT_FOUND', 'account not found');
    return row;
  }),
}));
/** The calling account's live personal tokens. */
const tokensRead = declareReads({ role: 'account' }, ({ http, account }) => ({
  rows: rowsRead(listAccountTokens(http, account)),
}));

accountsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/accounts',
    tags: ['accounts'],
    summary: 'Create an account (operator token only)',
    middleware: operator.middleware,
    request: jsonBody(
      z
        .object({
          email: z.string().trim().toLowerCase().max(320).pipe(z.email()),
          name: z.string().max(200).optional(),
        })
        .strict(),
    ),
    responses: {
      201: json(z.object({ account: AccountSchema, token: z.string() }), 'the account and its first token'),
      ...errorResponses(409),
    },
  }),
  async (c) => {
    operator.of(c);
    return c.json(await createAccount(requestContext(c), c.req.valid('json')), 201);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/account',
    tags: ['accounts'],
    summary: 'The calling account',
    middleware: accountRead.middleware,
    responses: { 200: json(AccountSchema, 'the account') },
  }),
  async (c) => c.json(accountRead.of(c).row, 200),
);

const TokenListing = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string().nullable().openapi({ description: 'null for a token made before tokens expired' }),
    last_used_at: z.string().nullable().openapi({ description: 'may lag by up to an hour' }),
    read_only: z.boolean(),
  })
  .openapi('PersonalToken');

accountsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/account/tokens',
    tags: ['accounts'],
    summary: 'Create a personal token (shown once)',
    middleware: account.middleware,
    request: jsonBody(
      z
        .object({
          name: z.string().trim().min(1).max(200),
          expires_in_days: z.number().int().min(1).max(TOKEN_MAX_DAYS).optional(),
          read_only: z.boolean().optional(),
        })
        .strict(),
    ),
    responses: {
      201: json(TokenListing.omit({ last_used_at: true }).extend({ token: z.string() }), 'shown once'),
    },
  }),
  async (c) => {
    const { accountId } = account.of(c);
    const body = c.req.valid('json');
    const principal = c.get('principal');
    const issued = await issueAccountToken(requestContext(c), {
      accountId,
      name: body.name,
      expiresInDays: body.expires_in_days,
      readOnly: body.read_only,
      // Its parent: revoking the caller's token with `?cascade=true` revokes this one too.
      mintedBy: principal.type === 'account' ? principal.tokenId : null,
    });
    return c.json(issued, 201);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/account/tokens',
    tags: ['accounts'],
    summary: "The account's live personal tokens (never their values)",
    middleware: tokensRead.middleware,
    responses: { 200: json(z.object({ tokens: z.array(TokenListing) }), 'oldest first') },
  }),
  async (c) => {
    const tokens = tokensRead.of(c).rows.map((row) => ({
      id: row.id,
      name: row.name,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      read_only: row.readOnly,
    }));
    return c.json({ tokens }, 200);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/tokens/{tokenId}',
    tags: ['accounts'],
    summary:
      'Revoke one of your personal tokens (and the sessions it opened); `?cascade=true` also revokes every token and session minted from it, transitively',
    middleware: account.middleware,
    request: {
      params: z.object({ tokenId: z.string() }),
      query: z.object({
        cascade: z.enum(['true', 'false']).optional().openapi({
          description: 'true: also revoke what this token minted, and what those minted (a leaked token)',
        }),
      }),
    },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'revoked') },
  }),
  async (c) => {
    const { accountId } = account.of(c);
    const { tokenId } = c.req.valid('param');
    const cascade = c.req.valid('query').cascade === 'true';
    await revokeAccountToken(requestContext(c), { accountId, tokenId, cascade });
    return c.json({ revoked: true as const }, 200);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/token',
    tags: ['accounts'],
    summary: 'Revoke the calling personal token (`tether logout`), read-only ones included',
    middleware: selfRevoke.middleware,
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'the token no longer works') },
  }),
  async (c) => {
    const principal = c.get('principal');
    const { accountId } = selfRevoke.of(c);
    if (principal.type !== 'account' || principal.via !== 'token') {
      throw new ApiError('FORBIDDEN', 'only a personal token can revoke itself; a session signs out');
    }
    await revokeAccountToken(requestContext(c), { accountId, tokenId: principal.tokenId });
    return c.json({ revoked: true as const }, 200);
  },
);
