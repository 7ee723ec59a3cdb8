/**
 * The rules of a named principal's request (contract §7), pure: its level for the kind, its
 * source allowlist as CIDRs, and its expiry (in the future, at most one year ahead).
 */
import { ApiError } from '../lib/errors';
import { type CredentialLevel, isLevelOf, LEVELS } from './levels';

/** A service kind that holds principals (an auth app has restricted keys instead). */
export type PrincipalKind = CredentialLevel['kind'];

/** `level` as one of the kind's levels (the same two as a site's connection), or 400. */
export function principalLevel(kind: PrincipalKind, level: string): CredentialLevel {
  if (!isLevelOf(kind, level))
    throw new ApiError(
      'VALIDATION_FAILED',
      `level: a ${kind} principal takes ${LEVELS[kind].join(' or ')}`,
      'level',
    );
  return { kind, level } as CredentialLevel;
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** An IPv4 address as a 32-bit number, or null. */
function ipv4(text: string): number | null {
  const m = V4.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (
    parts.some((p, i) => p > 255 || ((m[i + 1] as string).length > 1 && (m[i + 1] as string).startsWith('0')))
  )
    return null;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

/** An IPv6 address in canonical form (the URL parser validates and compresses it), or null. */
function ipv6(text: string): string | null {
  if (!text.includes(':') || /[^0-9a-fA-F:.]/.test(text)) return null;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * One allowlist entry as a CIDR: a bare address is /32 or /128; an IPv4 network keeps only its
 * network bits (10.1.2.3/8 is 10.0.0.0/8), so every system reads it alike. Null when invalid.
 */
export function normalizeCidr(entry: string): string | null {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const v4 = ipv4(address);
  if (v4 !== null) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix > 32) return null;
    const network = prefix === 0 ? 0 : Number((BigInt(v4) >> BigInt(32 - prefix)) << BigInt(32 - prefix));
    const dotted = [24, 16, 8, 0].map((shift) => (network >>> shift) & 255).join('.');
    return `${dotted}/${prefix}`;
  }
  const v6 = ipv6(address);
  if (v6 === null) return null;
  const prefix = prefixText === undefined ? 128 : Number(prefixText);
  if (prefix > 128) return null;
  return `${v6}/${prefix}`;
}

/** The allowlist as distinct CIDRs (empty: any source); 400 naming the first bad entry. */
export function allowedSources(entries: readonly string[] | undefined): string[] {
  const out: string[] = [];
  (entries ?? []).forEach((entry, i) => {
    const cidr = normalizeCidr(entry);
    if (cidr === null)
      throw new ApiError(
        'VALIDATION_FAILED',
        `allowed_sources[${i}]: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR`,
        `allowed_sources[${i}]`,
      );
    if (!out.includes(cidr)) out.push(cidr);
  });
  return out;
}

/** A calendar year after `now`. */
export function oneYearAfter(now: Date): Date {
  const limit = new Date(now);
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  return limit;
}

/** The expiry: absent is never; else an ISO 8601 time after `now` and at most a year later. */
export function principalExpiry(text: string | undefined | null, now = new Date()): Date | null {
  if (text === undefined || text === null) return null;
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
  const at = new Date(text);
  if (!iso.test(text) || Number.isNaN(at.getTime()))
    throw new ApiError(
      'VALIDATION_FAILED',
      'expires_at: an ISO 8601 date or date-time, such as 2027-01-31T00:00:00Z',
      'expires_at',
    );
  if (at.getTime() <= now.getTime())
    throw new ApiError('VALIDATION_FAILED', 'expires_at: must be in the future', 'expires_at');
  if (at.getTime() > oneYearAfter(now).getTime())
    throw new ApiError('VALIDATION_FAILED', 'expires_at: at most one year ahead', 'expires_at');
  return at;
}
