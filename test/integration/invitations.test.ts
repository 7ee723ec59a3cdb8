/**
 * Invitations (contract §10): an admin invites an e-mail address with a role (an owner to invite
 * an owner); the link is shown once and, with INVITATION_WEBHOOK_URL, POSTed signed to the
 * operator's mail sender; the invited account (and no other) accepts it once; used, revoked or
 * expired links are 404. Members are listed with their addresses; `tether members` drives it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject, type TestAccount, type TestProject } from '../helpers/api';
import { cliHome, runCli } from '../helpers/cli';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

type Made = {
  id: string;
  email: string;
  role: string;
  created_at: string;
  expires_at: string;
  accept_url: string;
};

let db: pg.Client;
let mailer: Receiver;
let worker: ExtraWorker;
const MAILER_SECRET = 'mail-sender-secret-of-the-operator';

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('metadataUrl') });
  await db.connect();
  mailer = await startReceiver();
  worker = await startExtraWorker({
    INVITATION_WEBHOOK_URL: mailer.url,
    INVITATION_WEBHOOK_SECRET: MAILER_SECRET,
  });
}, 120_000);

afterAll(async () => {
  await db?.end();
  await worker?.stop();
  await mailer?.close();
});

async function ownerWithProject(baseUrl?: string): Promise<{ owner: TestAccount; project: TestProject }> {
  const owner = await createAccount(undefined, baseUrl);
  return { owner, project: await createProject(owner.token, undefined, baseUrl) };
}

const tokenOf = (made: Made) => decodeURIComponent(made.accept_url.split('/console/invitations/')[1] ?? '');

describe('invitations', () => {
  it('an admin invites by e-mail; the invited account accepts once and becomes a member with that role', async () => {
    const { owner, project } = await ownerWithProject();
    const invitee = await createAccount();
    const made = await api().as(owner.token).post<Made>(`/api/v1/projects/${project.slug}/invitations`, {
      email: invitee.email.toUpperCase(),
      role: 'write',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ email: invitee.email, role: 'write' });
    expect(made.body.accept_url).toMatch(new RegExp(`^${inject('baseUrl')}/console/invitations/tth_iv_`));
    const days = (Date.parse(made.body.expires_at) - Date.parse(made.body.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(7);
    const listed = await api()
      .as(owner.token)
      .get<{ invitations: Made[] }>(`/api/v1/projects/${project.slug}/invitations`);
    expect(listed.body.invitations.map((i) => i.email)).toEqual([invitee.email]);
    expect(JSON.stringify(listed.body)).not.toContain('accept_url');
    expect(JSON.stringify(listed.body)).not.toContain(tokenOf(made.body));

    const token = tokenOf(made.body);
    const stranger = await createAccount();
    expect((await api().as(stranger.token).post(`/api/v1/invitations/${token}/accept`)).status).toBe(403);
    const accepted = await api().as(invitee.token).post(`/api/v1/invitations/${token}/accept`);
    expect([accepted.status, accepted.body]).toEqual([200, { project_id: project.id, role: 'write' }]);
    expect((await api().as(invitee.token).get(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    expect((await api().as(invitee.token).post(`/api/v1/invitations/${token}/accept`)).status).toBe(404);
    const members = await api()
      .as(invitee.token)
      .get<{ members: Array<{ email: string; role: string }> }>(`/api/v1/projects/${project.slug}/members`);
    expect(members.body.members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [invitee.email, 'write'],
    ]);
    const after = await api()
      .as(owner.token)
      .get<{ invitations: Made[] }>(`/api/v1/projects/${project.slug}/invitations`);
    expect(after.body.invitations).toEqual([]);
  });

  it('ten simultaneous acceptances of one invitation: exactly one 200, the rest 404', async () => {
    const { owner, project } = await ownerWithProject();
    const invitee = await createAccount();
    const made = await api()
      .as(owner.token)
      .post<Made>(`/api/v1/projects/${project.slug}/invitations`, { email: invitee.email, role: 'read' });
    const token = tokenOf(made.body);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api().as(invitee.token).post(`/api/v1/invitations/${token}/accept`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(404)]);
  });

  it('revoked and expired invitations are 404; an existing member is 409; a write member cannot invite', async () => {
    const { owner, project } = await ownerWithProject();
    const as = api().as(owner.token);
    const path = `/api/v1/projects/${project.slug}/invitations`;
    const revokedFor = await createAccount();
    const revoked = await as.post<Made>(path, { email: revokedFor.email, role: 'read' });
    expect((await as.delete(`${path}/${revoked.body.id}`)).body).toEqual({ revoked: true });
    expect((await as.delete(`${path}/${revoked.body.id}`)).body).toEqual({ revoked: false });
    expect(
      (
        await api()
          .as(revokedFor.token)
          .post(`/api/v1/invitations/${tokenOf(revoked.body)}/accept`)
      ).status,
    ).toBe(404);

    const expiredFor = await createAccount();
    const expired = await as.post<Made>(path, { email: expiredFor.email, role: 'read' });
    await db.query(`update invitations set expires_at = now() - interval '1 second' where id = $1`, [
      expired.body.id,
    ]);
    expect(
      (
        await api()
          .as(expiredFor.token)
          .post(`/api/v1/invitations/${tokenOf(expired.body)}/accept`)
      ).status,
    ).toBe(404);

    expect((await as.post(path, { email: owner.email, role: 'read' })).status).toBe(409);
    expect((await as.post(path, { email: 'not-an-address', role: 'read' })).status).toBe(400);
    expect((await as.post(path, { email: 'x@example.test', role: 'emperor' })).status).toBe(400);

    const writer = await createAccount();
    await as.put(`/api/v1/projects/${project.id}/members/${writer.id}`, { role: 'write' });
    expect((await api().as(writer.token).post(path, { email: 'y@example.test', role: 'read' })).status).toBe(
      403,
    );
    const admin = await createAccount();
    await as.put(`/api/v1/projects/${project.id}/members/${admin.id}`, { role: 'admin' });
    expect((await api().as(admin.token).post(path, { email: 'z@example.test', role: 'owner' })).status).toBe(
      403,
    );
    expect((await api().as(admin.token).post(path, { email: 'z@example.test', role: 'admin' })).status).toBe(
      201,
    );
  });

  it('with INVITATION_WEBHOOK_URL each invitation is POSTed, signed, to the mail sender', async () => {
    const { owner, project } = await ownerWithProject(worker.baseUrl);
    const made = await api(worker.baseUrl, owner.token).post<Made>(
      `/api/v1/projects/${project.slug}/invitations`,
      {
        email: 'mail-me@example.test',
        role: 'read',
      },
    );
    expect(made.status).toBe(201);
    const sent = await mailer.next((r) => r.rawBody.includes('mail-me@example.test'));
    expect(mailer.verifySignature(sent, MAILER_SECRET)).toBe(true);
    expect(JSON.parse(sent.rawBody)).toEqual({
      email: 'mail-me@example.test',
      project_name: project.name,
      inviter_email: owner.email,
      accept_url: made.body.accept_url,
      expires_at: made.body.expires_at,
    });
  });

  it('tether members invite, ls and remove (an invitation, then a member)', async () => {
    const { owner, project } = await ownerWithProject();
    const home = await cliHome({
      TETHER_API_URL: inject('baseUrl'),
      TETHER_TOKEN: owner.token,
      TETHER_PROJECT: project.slug,
    });
    try {
      const invited = await runCli(home, [
        'members',
        'invite',
        'cli-invitee@example.test',
        '--role',
        'write',
      ]);
      expect(invited.code, invited.stderr).toBe(0);
      expect(invited.stdout).toContain('/console/invitations/tth_iv_');
      const ls = await runCli(home, ['members']);
      expect(ls.stdout).toContain('cli-invitee@example.test');
      expect(ls.stdout).toContain(owner.email);
      expect((await runCli(home, ['members', 'remove', 'cli-invitee@example.test', '--yes'])).code).toBe(0);
      const pending = await api()
        .as(owner.token)
        .get<{ invitations: Made[] }>(`/api/v1/projects/${project.slug}/invitations`);
      expect(pending.body.invitations).toEqual([]);
      const member = await createAccount();
      await api()
        .as(owner.token)
        .put(`/api/v1/projects/${project.id}/members/${member.id}`, { role: 'read' });
      const removed = await runCli(home, ['members', 'remove', member.email, '--yes']);
      expect(removed.code, removed.stderr).toBe(0);
      expect((await api().as(member.token).get(`/api/v1/projects/${project.slug}`)).status).toBe(404);
    } finally {
      await home.cleanup();
    }
  });
});
