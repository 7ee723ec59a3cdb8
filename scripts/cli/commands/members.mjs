// @ts-check
/** `tether members`: a project's members and pending invitations; invite by e-mail, remove or revoke. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, printTable, say, when } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import { projectOf } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 */

const ROLES = ['read', 'write', 'admin', 'owner'];

/**
 * The project's members and pending invitations.
 * @param {import('../lib/api.mjs').Api} api
 * @param {string} project
 */
async function listing(api, project) {
  const params = { path: { id: project } };
  const [m, i] = await Promise.all([
    dataOf(api.GET('/api/v1/projects/{id}/members', { params })),
    dataOf(api.GET('/api/v1/projects/{id}/invitations', { params })),
  ]);
  return { members: m.members, invitations: i.invitations };
}

/** @param {Command} program */
export function registerMembers(program) {
  const members = program
    .command('members')
    .description("the project's members and invitations (list, invite, remove)")
    .addHelpText(
      'after',
      examples([
        'tether members',
        'tether members invite ana@example.com --role write',
        'tether members remove ana@example.com --yes',
      ]),
    );
  members
    .command('ls', { isDefault: true })
    .alias('list')
    .description('list members with their roles, and pending invitations')
    .option('--json', 'print the API answers as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const list = await listing(ctx.api(), projectOf(ctx.settings));
      if (opts.json) return printJson(list);
      printTable(
        ['EMAIL', 'ROLE', 'STATUS', 'SINCE'],
        [
          ...list.members.map((m) => [m.email, m.role, 'member', m.created_at]),
          ...list.invitations.map((i) => [
            i.email,
            i.role,
            `invited, expires ${when(i.expires_at)}`,
            i.created_at,
          ]),
        ],
      );
    });
  members
    .command('invite')
    .description('invite an e-mail address to the project with a role; prints the link to send')
    .argument('<email>', 'the address of the person to invite')
    .option('--role <role>', `one of ${ROLES.join(', ')}`, 'read')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ email, /** @type {{ role: string, json?: boolean }} */ opts, cmd) => {
        if (!ROLES.includes(opts.role)) throw new UsageError(`--role takes one of ${ROLES.join(', ')}`);
        const ctx = await contextOf(cmd);
        const project = projectOf(ctx.settings);
        const role = /** @type {import('../lib/api.mjs').BodyOf<'postProjectsByIdInvitations'>['role']} */ (
          opts.role
        );
        const made = await dataOf(
          ctx.api().POST('/api/v1/projects/{id}/invitations', {
            params: { path: { id: project } },
            body: { email, role },
          }),
        );
        if (opts.json) return printJson(made);
        say(
          `Invited ${made.email} to ${project} as ${made.role}; the invitation expires ${when(made.expires_at)}.`,
        );
        say(`Send them this link (shown once): ${made.accept_url}`);
      },
    );
  members
    .command('remove')
    .description('remove a member, or revoke a pending invitation, by e-mail address or account id')
    .argument('<who>', 'an e-mail address or account id')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {string} */ who, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const api = ctx.api();
      const project = projectOf(ctx.settings);
      const list = await listing(api, project);
      const wanted = who.trim().toLowerCase();
      const member = list.members.find((m) => m.email === wanted || m.account_id === wanted);
      const invitation = list.invitations.find((i) => i.email === wanted);
      if (member) {
        await confirm(
          `Remove ${member.email} from ${project}`,
          'They lose access to the project at once.',
          opts,
        );
        const answer = await dataOf(
          api.DELETE('/api/v1/projects/{id}/members/{accountId}', {
            params: { path: { id: project, accountId: member.account_id } },
          }),
        );
        if (opts.json) return printJson(answer);
        return say(`Removed ${member.email} from ${project}.`);
      }
      if (invitation) {
        await confirm(`Revoke the invitation of ${invitation.email}`, 'Its link stops working.', opts);
        const answer = await dataOf(
          api.DELETE('/api/v1/projects/{id}/invitations/{invitationId}', {
            params: { path: { id: project, invitationId: invitation.id } },
          }),
        );
        if (opts.json) return printJson(answer);
        return say(`Revoked the invitation of ${invitation.email}.`);
      }
      throw new UsageError(`${who} is neither a member of ${project} nor invited to it`);
    });
}
