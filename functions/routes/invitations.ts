/**
 * Members and invitations (contract §10): a project's members with their e-mail addresses, its
 * pending invitations, inviting by e-mail with a role, revoking, and accepting by the invited
 * account. An invitation's link is shown once, to the inviter, and sent to the optional signed
 * mail webhook.
 */
import type { Context } from 'hono';
import { type AppEnv, getHttpDb } from '../context';
import { ROLES } from '../domain/roles';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { log } from '../lib/logger';
import { apiRoute, json, jsonBody, routeGroup, z } from '../lib/openapi';
import { projectIdOf } from '../services/caller/api-caller';
import { requireAccount } from '../services/caller/project-access';
import {
  acceptInvitation,
  acceptUrl,
  createInvitation,
  invitationByHash,
  listInvitations,
  listMembers,
  revokeInvitation,
} from '../services/invitations';
import { access, iso, ProjectParam, readsCaller, readWithCaller, requestContext } from './shared';

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

export const invitationsRoutes = routeGroup<AppEnv>();

invitationsRoutes.openapi(
  apiRoute({
    method: 'get',
    path: '/projects/{id}/members',
    tags: ['projects'],
    summary: "The project's members with their e-mail addresses and roles",
    middleware: [readsCaller],
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ members: z.array(MemberSchema) }), 'oldest first') },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const [answer] = await readWithCaller(c, [listMembers(getHttpDb(c), projectIdOf(ref))]);
    await access(c, ref, 'read');
    const members = answer.rows.map((m) => ({
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
    const { project, role: callerRole, principal } = await access(c, c.req.valid('param').id, 'admin');
    const { email, role } = c.req.valid('json');
    if (role === 'owner' && callerRole !== 'owner')
      throw new ApiError('FORBIDDEN', 'only an owner may invite an owner');
    const invitedBy = requireAccount(principal);
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
    middleware: [readsCaller],
    request: { params: ProjectParam },
    responses: { 200: json(z.object({ invitations: z.array(InvitationSchema) }), 'oldest first') },
  }),
  async (c) => {
    const ref = c.req.valid('param').id;
    const [answer] = await readWithCaller(c, [listInvitations(getHttpDb(c), projectIdOf(ref))]);
    await access(c, ref, 'read');
    const invitations = answer.rows.map((i) => ({
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
    request: { params: ProjectParam.extend({ invitationId: z.string() }) },
    responses: { 200: json(z.object({ revoked: z.boolean() }), 'whether a pending invitation was revoked') },
  }),
  async (c) => {
    const params = c.req.valid('param');
    const { project } = await access(c, params.id, 'admin');
    return c.json(
      {
        revoked: await revokeInvitation(requestContext(c), {
          projectId: project.id,
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
    middleware: [readsCaller],
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
    const hash = await sha256Hex(c.req.valid('param').token);
    const [answer] = await readWithCaller(c, [invitationByHash(getHttpDb(c), hash)]);
    requireAccount(c.get('principal'));
    const [row] = answer.rows;
    if (!row)
      throw new ApiError('NOT_FOUND', 'invitation not found: it is unknown, used, revoked or expired');
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
    request: { params: TokenParam },
    responses: {
      200: json(z.object({ project_id: z.string(), role: z.enum(ROLES) }), 'the membership'),
    },
  }),
  async (c) => {
    const accountId = requireAccount(c.get('principal'));
    return c.json(
      await acceptInvitation(requestContext(c), { accountId, token: c.req.valid('param').token }),
      200,
    );
  },
);
