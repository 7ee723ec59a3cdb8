/** GitHub in the local sign-in stand-in: its OAuth app flow (code, token, `/user`, `/user/emails`). */
import { randomBytes } from 'node:crypto';
import { bearerOf, type ProviderStandIn, type TestUser } from './provider-stand-in';

/** GitHub's stand-in. */
export const githubStandIn: ProviderStandIn = {
  name: 'github',
  title: 'GitHub',
  openIdConnect: false,
  consoleSignIn: true,
  env: (origin) => ({
    GITHUB_AUTHORIZE_URL: `${origin}/github/authorize`,
    GITHUB_TOKEN_URL: `${origin}/github/token`,
    GITHUB_API_URL: `${origin}/github/api`,
  }),
  endpoints(kit) {
    const tokens = new Map<string, TestUser>();
    return async (path, req, res) => {
      if (req.method === 'POST' && path === '/github/token') {
        const pending = kit.redeem(req, await kit.readForm(req));
        // GitHub answers a bad code with 200 and an error member.
        if (typeof pending === 'string') {
          kit.sendJson(res, 200, { error: 'bad_verification_code' });
          return true;
        }
        const token = `gho_local${randomBytes(16).toString('hex')}`;
        tokens.set(token, pending.user);
        kit.sendJson(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
        return true;
      }
      if (req.method !== 'GET' || (path !== '/github/api/user' && path !== '/github/api/user/emails'))
        return false;
      const user = tokens.get(bearerOf(req));
      if (!user) kit.sendJson(res, 401, { message: 'Bad credentials' });
      else if (path.endsWith('/emails'))
        kit.sendJson(res, 200, [
          { email: user.email, primary: true, verified: user.verified, visibility: null },
        ]);
      else
        kit.sendJson(res, 200, {
          id: Number(user.id.slice(-6)),
          login: user.email.split('@')[0],
          name: user.name,
          email: user.verified ? user.email : null,
        });
      return true;
    };
  },
};
