/**
 * The webhook target's host check (docs/contract.md §9, "Webhook URLs"): the URL's scheme and
 * literal address, then every address its name resolves to, must be public. It runs when the
 * target is set and again before every send, resolving afresh, so a name that resolved to a
 * public address when it was set and points inward later (DNS rebinding) is refused then.
 */

import { addressRefusal, ipLiteral, webhookUrlRefusal } from '../../domain/public-address';
import { ResolverUnavailable } from '../host-resolver';
import { TargetFieldRefused, TargetUnreachable, type WebhookHostPolicy } from './target-adapter';

/**
 * Throws TargetFieldRefused (field `url`) unless `value` names a host whose every address is
 * public (or loopback where allowed); TargetUnreachable when the name cannot be resolved now.
 */
export async function checkWebhookHost(value: string, policy: WebhookHostPolicy): Promise<void> {
  const url = new URL(value);
  const refusal = webhookUrlRefusal(url, policy.allowLoopback);
  if (refusal) throw new TargetFieldRefused('url', refusal);
  if (ipLiteral(url.hostname)) return;
  let addresses: string[];
  try {
    addresses = await policy.resolver.resolve(url.hostname);
  } catch (err) {
    if (err instanceof ResolverUnavailable) throw new TargetUnreachable(err.message);
    throw err;
  }
  if (addresses.length === 0)
    throw new TargetFieldRefused('url', `${url.hostname} does not resolve to any address`);
  for (const address of addresses) {
    const refused = addressRefusal(address, policy.allowLoopback);
    if (refused) throw new TargetFieldRefused('url', `${url.hostname} resolves to ${address}, ${refused}`);
  }
}
