/** Who a request's changes are recorded as, from its caller and the client it names. */
import type { ActivitySource, Via } from './record';

/** The caller as the request resolved it (services/principal.ts Principal), by shape. */
export type CallerLike =
  | { type: 'account'; accountId: string }
  | { type: 'api_key'; keyId: string }
  | { type: 'operator' | 'anonymous' | 'invalid' };

/** The header a first-party client names itself with: `console` or `cli` (anything else is `api`). */
export const CLIENT_HEADER = 'x-tether-client';

const VIAS: Readonly<Record<string, Via>> = { console: 'console', cli: 'cli' };

/**
 * The source of a request's changes: its caller as actor, `via` from {@link CLIENT_HEADER}, and
 * the client address. A caller that could change nothing (anonymous, invalid) is never recorded;
 * it is named `system` only so the type stays total.
 */
export function activitySourceOf(
  principal: CallerLike,
  client: string | undefined,
  ip: string | undefined,
): ActivitySource {
  const via = VIAS[(client ?? '').trim().toLowerCase()] ?? 'api';
  const at = ip?.trim() || null;
  switch (principal.type) {
    case 'account':
      return { actor: { type: 'account', id: principal.accountId }, via, ip: at };
    case 'api_key':
      return { actor: { type: 'api_key', id: principal.keyId }, via, ip: at };
    case 'operator':
      return { actor: { type: 'operator', id: 'operator' }, via, ip: at };
    default:
      return { actor: { type: 'system', id: 'anonymous' }, via, ip: at };
  }
}
