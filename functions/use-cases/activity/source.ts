/** Who a request's changes are recorded as, from its caller and the client it names. */
import type { ActivitySource, Via } from './record';

/** The caller as the request resolved it (caller/principal-type.ts Principal), by shape. */
export type CallerLike =
  | { type: 'account'; accountId: string }
  | { type: 'api_key'; keyId: string }
  | { type: 'operator' | 'anonymous' | 'invalid' };

/** The header a first-party client names itself with: `console` or `cli` (anything else is `api`). */
export const CLIENT_HEADER = 'x-tether-client';

const VIAS: Readonly<Record<string, Via>> = { console: 'console', cli: 'cli' };

/**
 * The source of a request's changes: its caller as actor, `via` from {@link CLIENT_HEADER} (marked
 * as declared: the header proves nothing), and the client address. A caller that could change nothing (anonymous, invalid) is never recorded;
 * it is named `system` only so the type stays total.
 */
export function activitySourceOf(
  principal: CallerLike,
  client: string | undefined,
  ip: string | undefined,
): ActivitySource {
  const named = VIAS[(client ?? '').trim().toLowerCase()];
  // Any caller may send the header: a `via` it names is recorded as the client's declaration.
  const how = named ? { via: named, viaDeclared: true } : { via: 'api' as const };
  const at = ip?.trim() || null;
  switch (principal.type) {
    case 'account':
      return { actor: { type: 'account', id: principal.accountId }, ...how, ip: at };
    case 'api_key':
      return { actor: { type: 'api_key', id: principal.keyId }, ...how, ip: at };
    case 'operator':
      return { actor: { type: 'operator', id: 'operator' }, ...how, ip: at };
    default:
      return { actor: { type: 'system', id: 'anonymous' }, ...how, ip: at };
  }
}
