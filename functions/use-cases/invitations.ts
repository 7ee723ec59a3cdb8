/**
 * Invitations: a project role offered to one e-mail address for seven days, accepted once by
 * the account holding that (verified) address. Only the hash of an invitation's token is kept;
 * its link is shown once, to the inviter, and sent to the optional mail webhook.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../db/client';
import type { Role } from '../domain/roles';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { isUuid, newId, newSecret } from '../lib/ids';
import type { RequestContext } from '../request-context';
import { activityStatement } from './activity';

/** How long an invitation may be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A pending invitation as the API lists it. */
export interface InvitationBody {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
}

/** The console page that accepts the invitation `token`. */
export const acceptUrl = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/$/, '')}/console/invitations/${encodeURIComponent(token)}`;

/** SQL: an invitation row still open to acceptance. */
const PENDING = sql.raw('accepted_at is null and revoked_at is null and expires_at > now()');

/**
 * Invites `email` to the project with `role`: one statement, which replaces a pending invitation
 * of the same address (a re-send) and refuses an address that already belongs to a member (409).
 * Returns the invitation, its token (for the link) and the inviter's e-mail.
 */
export async function createInvitation(
  ctx: RequestContext,
  input: { projectId: string; email: string; role: Role; invitedBy: string },
): Promise<{ invitation: InvitationBody; token: string; inviterEmail: string | null }> {
  const db = ctx.http;
  const token = newSecret('invitation');
  const id = newId();
  const expiresAt = new Date(ctx.clock.now().getTime() + INVITATION_TTL_MS);
  const { rows } = await db.execute<{ created_at: string; inviter: string | null }>(sql`
    with member as (
      select 1 from project_members m join accounts a on a.id = m.account_id
       where m.project_id = ${input.projectId}::uuid and a.email = ${input.email}),
    replaced as (
      update invitations set revoked_at = now()
       where project_id = ${input.projectId}::uuid and email = ${input.email} and ${PENDING}
         and not exists (select 1 from member)
      returning id),
    made as (
      insert into invitations (id, project_id, email, role, token_hash, invited_by, expires_at)
      select ${id}::uuid, ${input.projectId}::uuid, ${input.email}, ${input.role}, ${await sha256Hex(token)},
             ${input.invitedBy}::uuid, ${expiresAt.toISOString()}::timestamptz
       where not exists (select 1 from member)
      returning created_at),
    recorded as (${activityStatement(
      ctx.activity,
      {
        action: 'member.invite',
        target: { type: 'invitation', id, name: input.email },
        projectId: input.projectId,
        details: { role: input.role, email: input.email },
      },
      sql`exists (select 1 from made)`,
    )})
    select made.created_at, (select email from accounts where id = ${input.invitedBy}::uuid) as inviter from made`);
  const [row] = rows;
  if (!row) throw new ApiError('CONFLICT', `${input.email} is already a member of this project`);
  return {
    invitation: {
      id,
      email: input.email,
      role: input.role,
      created_at: new Date(row.created_at).toISOString(),
      expires_at: expiresAt.toISOString(),
    },
    token,
    inviterEmail: row.inviter,
  };
}

/** The project's pending invitations, oldest first: a query for batching (`projectId` as SQL). */
export function listInvitations(db: HttpDb, projectId: SQL) {
  return db.execute<{ id: string; email: string; role: Role; created_at: string; expires_at: string }>(sql`
    select id, email, role, created_at, expires_at from invitations
     where project_id = ${projectId} and ${PENDING}
     order by created_at, id`);
}

/** Revokes a pending invitation of the project; false when there was none by that id. */
export async function revokeInvitation(
  ctx: RequestContext,
  { projectId, invitationId }: { projectId: string; invitationId: string },
): Promise<boolean> {
  const db = ctx.http;
  if (!isUuid(invitationId)) return false;
  const id = invitationId.toLowerCase();
  const { rows } = await db.execute(sql`
    with gone as (
      update invitations set revoked_at = now()
       where id = ${id}::uuid and project_id = ${projectId}::uuid and ${PENDING}
      returning id, email),
    recorded as (${activityStatement(
      ctx.activity,
      {
        action: 'invitation.revoke',
        target: { type: 'invitation', id, name: sql`select email from gone` },
        projectId,
      },
      sql`exists (select 1 from gone)`,
    )})
    select id from gone`);
  return rows.length > 0;
}

/** What the invitation whose token hashes to `hash` offers, for its accept page: a query for batching. */
export function invitationByHash(db: HttpDb, hash: string) {
  return db.execute<{
    email: string;
    role: Role;
    expires_at: string;
    project_id: string;
    project_name: string;
    project_slug: string;
  }>(sql`
    select i.email, i.role, i.expires_at, p.id as project_id, p.name as project_name, p.slug as project_slug
      from invitations i join projects p on p.id = i.project_id
     where i.token_hash = ${hash} and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()`);
}

/**
 * Accepts the invitation `token` as account `accountId`: one statement that takes the invitation
 * (single use: of simultaneous acceptances one finds it still open) only when the account's
 * e-mail is the invited one, and makes the account a member, never lowering a role it holds.
 * 404 for a token that is unknown, used, revoked or expired; 403 for another address.
 */
export async function acceptInvitation(
  ctx: RequestContext,
  { accountId, token }: { accountId: string; token: string },
): Promise<{ project_id: string; role: Role }> {
  const db = ctx.http;
  const hash = await sha256Hex(token);
  const { rows } = await db.execute<{
    found: string | null;
    email_ok: boolean | null;
    project_id: string | null;
    role: Role | null;
  }>(sql`
    with inv as (
      select id, email from invitations where token_hash = ${hash} and ${PENDING}),
    taken as (
      update invitations set accepted_at = now()
       where id = (select id from inv) and ${PENDING}
         and email = (select email from accounts where id = ${accountId}::uuid)
      returning project_id, role),
    member as (
      insert into project_members (project_id, account_id, role)
      select project_id, ${accountId}::uuid, role from taken
      on conflict (project_id, account_id) do update set role =
        case when array_position(array['read','write','admin','owner'], excluded.role)
                > array_position(array['read','write','admin','owner'], project_members.role)
             then excluded.role else project_members.role end
      returning project_id, role),
    recorded as (${activityStatement(
      ctx.activity,
      {
        action: 'member.join',
        target: {
          type: 'member',
          id: accountId,
          name: sql`select email from accounts where id = ${accountId}::uuid`,
        },
        projectId: sql`select project_id from member`,
      },
      sql`exists (select 1 from member)`,
    )})
    select (select id from inv) as found,
           (select email from inv) = (select email from accounts where id = ${accountId}::uuid) as email_ok,
           (select project_id from member) as project_id,
           (select role from member) as role`);
  const [row] = rows;
  const gone = () =>
    new ApiError('NOT_FOUND', 'invitation not found: it is unknown, used, revoked or expired');
  if (!row?.found) throw gone();
  if (!row.email_ok)
    throw new ApiError(
      'FORBIDDEN',
      'this invitation is for another e-mail address; sign in as the invited one',
    );
  // Found open, yet another acceptance took it first.
  if (!row.project_id || !row.role) throw gone();
  return { project_id: row.project_id, role: row.role };
}

/** Whether a pending invitation names `email` (the `invite` sign-up policy): a query for batching. */
export function pendingInvitationFor(db: HttpDb, email: string) {
  return db.execute<{ invited: boolean }>(sql`
    select exists (select 1 from invitations where email = ${email} and ${PENDING}) as invited`);
}

/** The project's members with their addresses, oldest first: a query for batching (`projectId` as SQL). */
export function listMembers(db: HttpDb, projectId: SQL) {
  return db.execute<{
    account_id: string;
    email: string;
    name: string | null;
    role: Role;
    created_at: string;
  }>(sql`
    select m.account_id, a.email, a.name, m.role, m.created_at
      from project_members m join accounts a on a.id = m.account_id
     where m.project_id = ${projectId}
     order by m.created_at, m.account_id`);
}
