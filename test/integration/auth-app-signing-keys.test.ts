/**
 * An auth app's signing keys as its managers see them (docs/contract.md §15): GET …/signing-keys,
 * `tether auth keys` and the console's Signing keys card name the current key and the published
 * next key (the JWKS's other key) with when it can become current; a rotation makes that next key
 * current and lists the replaced one until its last token expired.
 */
import { describe, expect, inject, it } from 'vitest';
import { api } from '../helpers/api';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { createTestAuthApp } from '../helpers/oauth';

const h = cliHomeForFile();

interface SigningKeys {
  current: { kid: string; created_at: string } | null;
  next: { kid: string; published_at: string; ready_at: string; becomes_current: string } | null;
  retired: Array<{ kid: string; retired_at: string; published_until: string }>;
}

describe("an auth app's signing keys", () => {
  it('the API, the CLI and the console show the next key and when it becomes current; a rotation promotes it', async () => {
    const baseUrl = inject('baseUrl');
    const app = await createTestAuthApp(baseUrl);
    const keysPath = `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/signing-keys`;
    const before = await app.admin.get<SigningKeys>(keysPath);
    expect(before.status, before.text).toBe(200);
    const jwks = await api(baseUrl).get<{ keys: Array<{ kid: string }> }>(
      `/v1/${app.slug}/.well-known/jwks.json`,
    );
    const { current, next } = before.body;
    expect(jwks.body.keys.map((k) => k.kid).sort()).toEqual([current?.kid, next?.kid].sort());
    expect(next?.becomes_current).toBe('at_next_rotation');
    expect(Date.parse(next?.ready_at ?? '') - Date.parse(next?.published_at ?? '')).toBe(300_000);
    expect(before.body.retired).toEqual([]);
    expect(before.text).not.toMatch(/private|"d"/);

    signInAs(h, { token: app.owner.token, project: app.project });
    const cli = await runCli(h, ['auth', 'keys', app.slug]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`current: ${current?.kid}`);
    expect(cli.stdout).toContain(`next:    ${next?.kid}`);
    expect(cli.stdout).toMatch(/becomes current at the next rotation/);
    const json = await runCli(h, ['auth', 'keys', app.slug, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(before.body);

    const session = await api(baseUrl, app.owner.token).post<{ token: string }>('/api/v1/account/sessions');
    const page = await fetch(`${baseUrl}/console/projects/${app.project.slug}/auth-apps/${app.id}`, {
      headers: { cookie: `tether_session=${session.body.token}` },
    });
    const html = await page.text();
    expect(page.status, html.slice(0, 300)).toBe(200);
    expect(html).toContain('Signing keys');
    expect(html).toContain(String(next?.kid));
    expect(html).toContain('Becomes current at the next rotation');

    const rotated = await app.admin.post<{ kid: string }>(
      `/api/v1/projects/${app.project.id}/auth-apps/${app.id}/signing-key/rotate`,
    );
    expect(rotated.body.kid).toBe(next?.kid);
    const after = await app.admin.get<SigningKeys>(keysPath);
    expect(after.body.current?.kid).toBe(next?.kid);
    expect(after.body.next?.kid).not.toBe(next?.kid);
    expect(after.body.retired.map((k) => k.kid)).toEqual([current?.kid]);
    const retired = after.body.retired[0];
    expect(Date.parse(retired?.published_until ?? '') - Date.parse(retired?.retired_at ?? '')).toBe(
      1_080_000,
    );
  });
});
