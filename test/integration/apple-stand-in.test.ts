/**
 * The local Sign in with Apple stand-in that `npm start` runs (scripts/local/stand-ins/
 * apple-stand-in.ts): a person picked on its page comes back by form POST, Tether redeems the
 * code with the client secret it signs, and the sign-in ends in a session carrying the name of
 * the first authorization.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AppleStandIn, startAppleStandIn } from '../../scripts/local/stand-ins/apple-stand-in';
import { api } from '../helpers/api';
import { enableApple } from '../helpers/apple';
import {
  asClient,
  CLIENT_IP_HEADER,
  cookiesOf,
  createTestAuthApp,
  paramsOf,
  pkcePair,
  type Session,
} from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

let apple: AppleStandIn;
let worker: ExtraWorker;
beforeAll(async () => {
  apple = await startAppleStandIn();
  worker = await startExtraWorker({ ...apple.env, CLIENT_IP_HEADER });
});
afterAll(async () => {
  await worker?.stop();
  await apple?.stop();
});

/** The hidden fields of the stand-in's form_post page. */
const fieldsOf = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, k, v]) => [
      k,
      (v ?? '').replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))),
    ]),
  );

it('an Apple sign-in through the local stand-in ends in a session with the first callback’s name', async () => {
  const app = await createTestAuthApp(worker.baseUrl);
  await enableApple(app);
  const { verifier, challenge } = await pkcePair();
  const start = await api(worker.baseUrl).get(
    `/v1/${app.slug}/auth/apple?${new URLSearchParams({ redirect_uri: 'myapp://auth', code_challenge: challenge, code_challenge_method: 'S256' })}`,
    { headers: asClient() },
  );
  expect(start.status, start.text).toBe(302);
  const authorize = new URL(start.headers.get('location') ?? '');
  const picked = await fetch(`${apple.url}/auth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), person: '0' }),
  });
  const page = await picked.text();
  expect(page).toContain(`action="${authorize.searchParams.get('redirect_uri')}"`);
  const back = await api(worker.baseUrl).post(`/v1/${app.slug}/auth/apple/callback`, undefined, {
    rawBody: new URLSearchParams(fieldsOf(page)).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(start) },
  });
  expect(back.status, back.text).toBe(302);
  const code = paramsOf(back.headers.get('location') ?? '').get('code');
  const session = await api(worker.baseUrl).post<Session>(
    `/v1/${app.slug}/oauth/exchange`,
    { code, code_verifier: verifier },
    { headers: asClient() },
  );
  expect(session.status, session.text).toBe(200);
  expect(session.body.user).toMatchObject({
    email: 'jo@example.com',
    name: 'Jo Appleseed',
    providers: ['apple'],
  });
});
