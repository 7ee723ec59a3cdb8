/**
 * The console's token sign-in answers every refused token alike: a live dashboard session, a
 * live API key and a token that does not exist get the same status and the same words, so the
 * form cannot be used to tell which strings are live credentials. Pins that a session or key
 * got its own "not a session token" answer.
 */
import { describe, expect, inject, it } from 'vitest';
import { api, createAccount, createProject } from '../helpers/api';

const baseUrl = inject('baseUrl');

/** The login form's answer for `token`: status and the error line the page shows. */
async function signIn(token: string): Promise<{ status: number; message: string | undefined }> {
  const res = await fetch(`${baseUrl}/console/login`, {
    method: 'POST',
    headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
    redirect: 'manual',
  });
  const html = await res.text();
  return { status: res.status, message: /That token was not accepted[^<]*/.exec(html)?.[0] };
}

describe('the console token sign-in', () => {
  it('answers a session, an API key and an unknown token with the same 401 and words', async () => {
    const account = await createAccount();
    const session = await api(baseUrl, account.token).post<{ token: string }>('/api/v1/account/sessions');
    expect(session.status, session.text).toBe(201);
    const project = await createProject(account.token);
    const key = await api(baseUrl, account.token).post<{ key: string }>(
      `/api/v1/projects/${project.id}/api-keys`,
      {
        name: 'ci',
        capabilities: { storage: true },
      },
    );
    expect(key.status, key.text).toBe(201);

    const answers = await Promise.all(
      [session.body.token, key.body.key, `tth_at_${'x'.repeat(40)}`].map((token) => signIn(token)),
    );
    for (const answer of answers) expect(answer.status).toBe(401);
    expect(answers[0]?.message).toBeDefined();
    expect(new Set(answers.map((a) => a.message)).size).toBe(1);
  });

  it('still signs a live account token in', async () => {
    const account = await createAccount();
    const res = await fetch(`${baseUrl}/console/login`, {
      method: 'POST',
      headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: account.token }),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
  });
});
