/**
 * Who may make an account by signing in (ACCOUNT_SIGNUP): only people a pending invitation
 * names (`invite`, the default), anyone (`open`), or addresses of the listed e-mail domains.
 * The operator token creates accounts whatever the policy says.
 */

/** The parsed policy. */
export type SignupPolicy = { invitedOnly: true } | { invitedOnly: false; domains: readonly string[] | null };

const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Parses ACCOUNT_SIGNUP; null when it is neither keyword nor a list of domains. */
export function parseSignupPolicy(value: string): SignupPolicy | null {
  const text = value.trim().toLowerCase();
  if (text === 'invite') return { invitedOnly: true };
  if (text === 'open') return { invitedOnly: false, domains: null };
  const domains = text
    .split(',')
    .map((d) => d.trim().replace(/^@/, ''))
    .filter(Boolean);
  if (domains.length === 0 || !domains.every((d) => DOMAIN_RE.test(d))) return null;
  return { invitedOnly: false, domains };
}

/** Whether a person with the verified address `email` may get a new account; `invited`: a pending invitation names it. */
export function maySignUp(policy: SignupPolicy, email: string, invited: boolean): boolean {
  if (invited) return true;
  if (policy.invitedOnly) return false;
  if (policy.domains === null) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return policy.domains.includes(domain);
}
