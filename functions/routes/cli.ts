/**
 * The signed-in half of `tether login` (contract §10), called by the console's pages with the
 * person's dashboard session: `Authorize` on /console/cli-login issues the browser flow's code,
 * and /console/device approves or denies a device grant by its user code. Only a dashboard
 * session may do either: a person in a browser, not a script holding a token.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { loopbackRedirectProblem } from '../domain/cli-login-rules';
import { clientKey } from '../domain/client-key';
import { CHALLENGE_METHOD, CODE_CHALLENGE_RE } from '../domain/pkce';
import { ApiError } from '../lib/errors';
import { apiRoute, errorResponses, json, jsonBody, z } from '../lib/openapi';
import { decideDeviceLogin, describeDeviceLogin } from '../use-cases/cli-device';
import { authorizeCli } from '../use-cases/cli-login';
import { declaredRoutes, declareReads } from './declared-reads';
import { requestContext } from './shared';

export const cliRoutes = declaredRoutes();

/** An account caller; {@link sessionAccount} then takes only a dashboard session. */
const caller = declareReads({ role: 'account' });

/** The calling account and its session, when the caller is a dashboard session; 403 for anything else. */
function sessionAccount(c: Context<AppEnv>): { accountId: string; sessionId: string } {
  const { accountId } = caller.of(c);
  const principal = c.get('principal');
  if (principal.type !== 'account' || principal.via !== 'session') {
    throw new ApiError('FORBIDDEN', 'only a signed-in person (a dashboard session) can authorize the CLI');
  }
  return { accountId, sessionId: principal.tokenId };
}

cliRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/cli/authorizations',
    tags: ['accounts'],
    summary: "Authorize `tether login` in the browser: a one-time code for the CLI's loopback redirect",
    description:
      "Dashboard session only (the console's Authorize). `redirect_uri` must be `http://127.0.0.1:<port>/…` or `http://[::1]:<port>/…`. The code lives 120 s, is single use, and is traded with its PKCE verifier at POST /cli/token.",
    middleware: caller.middleware,
    request: jsonBody(
      z
        .object({
          redirect_uri: z.string().max(2048),
          code_challenge: z
            .string()
            .regex(CODE_CHALLENGE_RE, 'S256 of the verifier, base64url, 43 characters'),
          code_challenge_method: z.literal(CHALLENGE_METHOD),
          state: z.string().min(1).max(512),
          name: z.string().trim().min(1).max(100),
        })
        .strict(),
    ),
    responses: {
      201: json(
        z.object({ redirect_to: z.string() }),
        'where the browser goes next: the CLI, with code and state',
      ),
      ...errorResponses(),
    },
  }),
  async (c) => {
    const { accountId, sessionId } = sessionAccount(c);
    const body = c.req.valid('json');
    const problem = loopbackRedirectProblem(body.redirect_uri);
    if (problem) throw new ApiError('BAD_REQUEST', problem, 'redirect_uri');
    const { redirectTo } = await authorizeCli(requestContext(c), {
      accountId,
      sessionId,
      redirectUri: body.redirect_uri,
      challenge: body.code_challenge,
      state: body.state,
      name: body.name,
    });
    return c.json({ redirect_to: redirectTo }, 201);
  },
);

cliRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/cli/device/decision',
    tags: ['accounts'],
    summary: 'Approve or deny `tether login --device` by its user code',
    description:
      "Dashboard session only (the console's /console/device). 404 for a code no pending sign-in has; after ten wrong codes (per person and per client, 15 minutes) every try is 429.",
    middleware: caller.middleware,
    request: jsonBody(
      z.object({ user_code: z.string().trim().min(1).max(32), approve: z.boolean() }).strict(),
    ),
    responses: {
      200: json(
        z.object({ name: z.string(), approved: z.boolean() }),
        'the machine that asked, and the decision made',
      ),
      429: json(
        z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
        'too many wrong codes',
      ),
    },
  }),
  async (c) => {
    const { accountId, sessionId } = sessionAccount(c);
    const body = c.req.valid('json');
    const client = clientKey(c.req.header(c.get('config').CLIENT_IP_HEADER) ?? '');
    const { name } = await decideDeviceLogin(requestContext(c), {
      accountId,
      sessionId,
      client,
      typed: body.user_code,
      approve: body.approve,
    });
    return c.json({ name, approved: body.approve }, 200);
  },
);

cliRoutes.openapi(
  apiRoute({
    method: 'post',
    path: '/cli/device/lookup',
    tags: ['accounts'],
    summary: 'The machine a `tether login --device` user code belongs to, before deciding (RFC 8628 §5.4)',
    description:
      "Dashboard session only (the console's /console/device shows it before `Authorize`). Decides nothing; counted like a decision: 404 for a code no pending sign-in has, and after ten wrong codes (per person and per client, 15 minutes) every try is 429.",
    middleware: caller.middleware,
    request: jsonBody(z.object({ user_code: z.string().trim().min(1).max(32) }).strict()),
    responses: {
      200: json(
        z.object({
          name: z.string(),
          ip: z.string().nullable().openapi({ description: 'the address the CLI started from' }),
          started_at: z.string().nullable(),
        }),
        'the machine that asks',
      ),
      429: json(
        z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
        'too many wrong codes',
      ),
    },
  }),
  async (c) => {
    const { accountId } = sessionAccount(c);
    const client = clientKey(c.req.header(c.get('config').CLIENT_IP_HEADER) ?? '');
    const device = await describeDeviceLogin(requestContext(c), {
      accountId,
      client,
      typed: c.req.valid('json').user_code,
    });
    return c.json(device, 200);
  },
);
