/** Accounts, account tokens and dashboard sessions (CONTRACT §3). */
import { and, eq, isNull } from 'drizzle-orm';
import { accounts, accountTokens } from '../../db/schema';
import { type AppEnv, getDb, getHttpDb } from '../context';
import { sha256Hex } from '../lib/crypto';
import { conflict, forbidden, notFound, unauthorized } from '../lib/errors';
import { isUuid, newId, newSecret } from '../lib/ids';
import { apiRoute, errorResponses, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { requireAccount } from '../services/access';
import { callerAccount, readsCaller, readWithCaller } from './shared';

/** Dashboard sessions last twelve hours. */
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const AccountSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string().nullable() })
  .openapi('Account');

export const accountsRoutes = routeGroup<AppEnv>();

accountsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/accounts',
    tags: ['accounts'],
    summary: 'Create an account (operator token only)',
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
    const principal = c.get('principal');
    if (principal.type === 'anonymous' || principal.type === 'invalid') throw unauthorized();
    if (principal.type !== 'operator') throw forbidden('only the operator token can create accounts');
    const { email, name } = c.req.valid('json');
    const db = getDb(c);
    const token = newSecret('account');
    const account = { id: newId(), email, name: name ?? null };
    const created = await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(accounts)
        .values(account)
        .onConflictDoNothing()
        .returning({ id: accounts.id });
      if (inserted.length === 0) return false;
      await tx.insert(accountTokens).values({
        id: newId(),
        accountId: account.id,
        kind: 'token',
        name: 'initial',
        tokenHash: await sha256Hex(token),
      });
      return true;
    });
    if (!created) throw conflict(`an account with e-mail ${email} already exists`);
    return c.json({ account, token }, 201);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/account',
    tags: ['accounts'],
    summary: 'The calling account',
    middleware: [readsCaller],
    responses: { 200: json(AccountSchema, 'the account') },
  }),
  async (c) => {
    const [[row]] = await readWithCaller(c, [
      getHttpDb(c)
        .select({ id: accounts.id, email: accounts.email, name: accounts.name })
        .from(accounts)
        .where(eq(accounts.id, callerAccount(c))),
    ]);
    requireAccount(c.get('principal'));
    if (!row) throw notFound('account');
    return c.json(row, 200);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/account/tokens',
    tags: ['accounts'],
    summary: 'Issue another account token',
    request: jsonBody(z.object({ name: z.string().max(200).optional() }).strict()),
    responses: { 201: json(z.object({ id: z.string(), token: z.string() }), 'the token, shown once') },
  }),
  async (c) => {
    const accountId = requireAccount(c.get('principal'), 'token');
    const { name } = c.req.valid('json');
    const token = newSecret('account');
    const id = newId();
    await getHttpDb(c)
      .insert(accountTokens)
      .values({ id, accountId, kind: 'token', name: name ?? null, tokenHash: await sha256Hex(token) });
    return c.json({ id, token }, 201);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/tokens/{tokenId}',
    tags: ['accounts'],
    summary: 'Revoke one of your account tokens',
    request: { params: z.object({ tokenId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'revoked') },
  }),
  async (c) => {
    const accountId = requireAccount(c.get('principal'), 'token');
    const { tokenId } = c.req.valid('param');
    if (!isUuid(tokenId)) throw notFound('token');
    const revoked = await getHttpDb(c)
      .update(accountTokens)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(accountTokens.id, tokenId),
          eq(accountTokens.accountId, accountId),
          eq(accountTokens.kind, 'token'),
          isNull(accountTokens.revokedAt),
        ),
      )
      .returning({ id: accountTokens.id });
    if (revoked.length === 0) throw notFound('token');
    return c.json({ revoked: true as const }, 200);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/account/sessions',
    tags: ['accounts'],
    summary: 'Open a dashboard session (accepted as Bearer and as the console cookie)',
    responses: { 201: json(z.object({ token: z.string(), expires_at: z.string() }), 'the session') },
  }),
  async (c) => {
    const accountId = requireAccount(c.get('principal'), 'token');
    const token = newSecret('session');
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    await getHttpDb(c)
      .insert(accountTokens)
      .values({ id: newId(), accountId, kind: 'session', tokenHash: await sha256Hex(token), expiresAt });
    return c.json({ token, expires_at: expiresAt.toISOString() }, 201);
  },
);

accountsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/account/session',
    tags: ['accounts'],
    summary: "End the calling dashboard session (the console's Sign out)",
    responses: { 200: json(z.object({ revoked: z.literal(true) }), 'the session no longer works') },
  }),
  async (c) => {
    const principal = c.get('principal');
    const accountId = requireAccount(principal);
    if (principal.type !== 'account' || principal.via !== 'session') {
      throw forbidden('only a dashboard session can end itself; revoke an account token by its id');
    }
    await getHttpDb(c)
      .update(accountTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(accountTokens.id, principal.tokenId), eq(accountTokens.accountId, accountId)));
    return c.json({ revoked: true as const }, 200);
  },
);
