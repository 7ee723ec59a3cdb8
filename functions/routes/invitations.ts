/**
 * Members and invitations (contract §10): a project's members with their e-mail addresses, its
 * pending invitations, inviting by e-mail with a role, revoking, and accepting by the invited
 * account. An invitation's link is shown once, to the inviter, and sent to the optional signed
 * mail webhook.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { ROLES } from '../domain/roles';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { log } from '../lib/logger';
import { apiRoute, json, jsonBody, z } from '../lib/openapi';
import { read, rowsRead } from '../use-cases/caller/declared-reads';
import { requireAccount } from '../use-cases/caller/project-access';
import {
  acceptInvitation,
  acceptUrl,
  createInvitation,
  invitationByHash,
  listInvitations,
  listMembers,
  revokeInvitation,
} from '../use-cases/invitations';
import { declaredRoutes, declareInputReads, declareReads } from './declared-reads';
import { iso, ProjectParam, projectListingRoute, requestContext } from './shared';

const InvitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .openapi('Invitation');

const MemberSchema = z
  .object({
    account_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(ROLES),
    created_at: z.string(),
  })
  .openapi('Member');

const TokenParam = z.object({ token: z.string().min(1).max(200) });

export const invitationsRoutes = declaredRoutes();

/** The project's members, at read. */
const membersRead = declareReads({ role: 'read' }, ({ http, project }) => ({
  answer: rowsRead(listMembers(http, project)),
}));
/** The project's pending invitations, at read. */
const invitationsRead = declareReads({ role: 'read' }, ({ http, project }) => ({
  answer: rowsRead(listInvitations(http, project)),
}));
/** The project, at admin. */
const admin = declareReads({ role: 'admin' });
/** An account caller. */
const account = declareReads({ role: 'account' });
/** The pending invitation whose token hashes to the input, for an account caller (its 404 after the caller's). */
const invitationRead = declareInputReads({ role: 'account' }, ({ http }, hash: string) => ({
  row: read(invitationByHash(http, hash), ({ rows: [row] }) => {
    if (!row)
      throw new ApiError('NOT_FOUND', 'invitation not found: it is unknown, used, revoked or expired');
    return row;
  }),
}));

invitationsRoutes.openapi(
  projectListingRoute({
    path: '/projects/{id}/members',
    tag: 'projects',
    summary: "The project's members with their e-mail addresses and roles",
    middleware: membersRead.middleware,
    key: 'members',
    item: MemberSchema,
    listed: 'oldest first',
  }),
  async (c) => {
    const members = membersRead.of(c).answer.rows.map((m) => ({
      account_id: m.account_id,
      email: m.email,
      name: m.name,
      role: m.role,
      created_at: iso(new Date(m.created_at)),
    }));
    return c.json({ members }, 200);
  },
);

invitationsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/projects/{id}/invitations',
    tags: ['projects'],
    summary: 'Invite an e-mail address with a role (admin; owner to invite an owner); the link is shown once',
    middleware: admin.middleware,
    request: {
      params: ProjectParam,
      ...jsonBody(
        z
          .object({
            email: z.string().trim().toLowerCase().max(320).pipe(z.email()),
            role: z.enum(ROLES),
          })
          .strict(),
      ),
    },
    responses: {
      201: json(InvitationSchema.extend({ accept_url: z.string() }), 'the invitation and its link'),
    },
  }),
  async (c) => {
    const { project, role: callerRole } = admin.of(c);
    const { email, role } = c.req.valid('json');
    if (role === 'owner' && callerRole !== 'owner')
      throw new ApiError('FORBIDDEN', 'only an owner may invite an owner');
    const invitedBy = requireAccount(c.get('principal'));
    const made = await createInvitation(requestContext(c), {
      projectId: project.id,
      email,
      role,
      invitedBy,
    });
    const url = acceptUrl(c.get('config').PUBLIC_BASE_URL, made.token);
    sendToMailer(c, {
      email,
      project_name: project.name,
      inviter_email: made.inviterEmail,
      accept_url: url,
      expires_at: made.invitation.expires_at,
    });
    return c.json({ ...made.invitation, accept_url: url }, 201);
  },
);

/** Posts the invitation to the operator's mail sender after the answer, retrying a few times. */
function sendToMailer(c: Context<AppEnv>, body: Record<string, unknown>): void {
  const mailer = c.get('ctx').receivers.invitations;
  if (!mailer) return;
  const text = JSON.stringify(body);
  const send = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await mailer.send(text);
      } catch (err) {
        if (attempt >= 3) return log.failure('invitation webhook: not delivered', err);
        await new Promise((done) => setTimeout(done, 500 * 2 ** attempt));
      }
    }
  };
  c.executionCtx.waitUntil(send());
}

invitationsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/invitations',
    tags: ['projects'],
    summary: "The project's pending invitations (never their links)",
    middleware: invitationsRead.middleware,
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ invitations: z.array(InvitationSchema) }), 'oldest first') },
  }),
  async (c) => {
    const invitations = invitationsRead.of(c).answer.rows.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      created_at: iso(new Date(i.created_at)),
      expires_at: iso(new Date(i.expires_at)),
    }));
    return c.json({ invitations }, 200);
  },
);

invitationsRoutes.openapi(
  apiRoute({
    method: 'delete',
    path: '/projects/{id}/invitations/{invitationId}',
    tags: ['projects'],
    summary: 'Revoke a pending invitation',
    middleware: admin.middleware,
    request: { params: ProjectParam.extend({ invitationId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.boolean() }), 'whether a pending invitation was revoked') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    return c.json(
      {
        revoked: await revokeInvitation(requestContext(c), {
          projectId: admin.of(c).projectId,
          invitationId: params.invitationId,
        }),
      },
      200,
    );
  },
);

invitationsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/invitations/{token}',
    tags: ['projects'],
    summary: 'What a pending invitation offers (for its accept page)',
    middleware: invitationRead.middleware,
    request: { params: TokenParam },
    responses: {
      200: json(
        z.object({
          email: z.string(),
          role: z.enum(ROLES),
          expires_at: z.string(),
          project: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
        }),
        'the invitation',
      ),
    },
  }),
  async (c) => {
    const { row } = await invitationRead.run(c, await sha256Hex(c.req.valid('param').token));
    return c.json(
      {
        email: row.email,
        role: row.role,
        expires_at: iso(new Date(row.expires_at)),
        project: { id: row.project_id, slug: row.project_slug, name: row.project_name },
      },
      200,
    );
  },
);

invitationsRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/invitations/{token}/accept',
    tags: ['projects'],
    summary: 'Accept an invitation as the account whose e-mail it names (single use)',
    middleware: account.middleware,
    request: { params: TokenParam },
    responses: {
      200: json(z.object({ project_id: z.string(), role: z.enum(ROLES) }), 'the membership'),
    },
  }),
  async (c) => {
    const { accountId } = account.of(c);
    return c.json(
      await acceptInvitation(requestContext(c), { accountId, token: c.req.valid('param').token }),
      200,
    );
  },
);
