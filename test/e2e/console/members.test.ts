/**
 * The project page's Members section in headless Chromium: an admin invites by e-mail with a
 * role (the link shown once), the invitation is listed and revoked; a member is removed after
 * confirmation; the last owner cannot be removed (no Remove beside them; the API refuses it); a read member sees the list without controls.
 */
import { describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../../helpers/api';
import { chromiumForFile } from '../../helpers/browser';
import { checkPage, confirmationDialog, shownValue, signedInPage } from '../../helpers/console';

const browser = chromiumForFile();
const baseUrl = inject('baseUrl');

type Pending = { invitations: Array<{ id: string; email: string; role: string }> };

describe('console Members section', { timeout: 120_000 }, () => {
  it('an owner invites, revokes an invitation and removes a member; the last owner stays', async () => {
    const owner = await createAccount();
    const project = await createProject(owner.token);
    const page = await signedInPage(browser, baseUrl, owner.token, `/console/projects/${project.slug}`);
    const members = page.locator('section', { has: page.getByRole('heading', { name: 'Members' }) });
    await expect(members.getByRole('row', { name: new RegExp(owner.email) }).count()).resolves.toBe(1);

    await members.getByRole('textbox', { name: 'Email' }).fill('new-person@example.test');
    await members.getByRole('combobox', { name: 'Role' }).selectOption('write');
    await members.getByRole('button', { name: 'Invite' }).click();
    const link = await shownValue(page, 'link');
    expect(link).toMatch(new RegExp(`^${baseUrl}/console/invitations/tth_iv_`));
    const pending = await api(baseUrl, owner.token).get<Pending>(
      `/api/v1/projects/${project.slug}/invitations`,
    );
    expect(pending.body.invitations.map((i) => [i.email, i.role])).toEqual([
      ['new-person@example.test', 'write'],
    ]);

    await page.goto(`/console/projects/${project.slug}`);
    await checkPage(page, 'project-members');
    const invitedRow = members.getByRole('row', { name: /new-person@example\.test/ });
    await invitedRow.getByRole('button', { name: 'Revoke' }).click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Revoked the invitation').waitFor();
    const after = await api(baseUrl, owner.token).get<Pending>(
      `/api/v1/projects/${project.slug}/invitations`,
    );
    expect(after.body.invitations).toEqual([]);

    const member = await createAccount();
    await api(baseUrl, owner.token).put(`/api/v1/projects/${project.id}/members/${member.id}`, {
      role: 'read',
    });
    await page.goto(`/console/projects/${project.slug}`);
    await members
      .getByRole('row', { name: new RegExp(member.email) })
      .getByRole('button', { name: 'Remove' })
      .click();
    await (await confirmationDialog(page)).getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Removed ${member.email}`).waitFor();
    expect((await api(baseUrl, member.token).get(`/api/v1/projects/${project.slug}`)).status).toBe(404);

    // The only owner's row offers no Remove (the API refuses it: at least one owner stays).
    expect(
      await members
        .getByRole('row', { name: new RegExp(owner.email) })
        .getByRole('button', { name: 'Remove' })
        .count(),
    ).toBe(0);
    const refused = await api(baseUrl, owner.token).delete(
      `/api/v1/projects/${project.id}/members/${owner.id}`,
    );
    expect(refused.text).toContain('at least one owner');
    expect((await api(baseUrl, owner.token).get(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    await page.context().close();
  });

  it('a read member sees members and invitations without Invite, Remove or Revoke', async () => {
    const owner = await createAccount();
    const project = await createProject(owner.token);
    const reader = await createAccount();
    await api(baseUrl, owner.token).put(`/api/v1/projects/${project.id}/members/${reader.id}`, {
      role: 'read',
    });
    await api(baseUrl, owner.token).post(`/api/v1/projects/${project.id}/invitations`, {
      email: 'someone@example.test',
      role: 'read',
    });
    const page = await signedInPage(browser, baseUrl, reader.token, `/console/projects/${project.slug}`);
    const members = page.locator('section', { has: page.getByRole('heading', { name: 'Members' }) });
    await expect(members.getByRole('row', { name: /someone@example\.test/ }).count()).resolves.toBe(1);
    for (const name of ['Invite', 'Remove', 'Revoke'])
      expect(await members.getByRole('button', { name }).count()).toBe(0);
    await page.context().close();
  });
});
