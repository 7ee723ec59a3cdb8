/**
 * Which hosts a webhook target may send to (docs/contract.md §9, "Webhook URLs"): only public
 * addresses. Private, loopback, link-local (cloud metadata among them), carrier-grade NAT,
 * unique-local, unspecified, multicast and reserved addresses are refused, and so is an IPv6
 * address that carries an IPv4 one (mapped, NAT64, 6to4, Teredo) unless the IPv4 inside is public.
 * Loopback is let through only where the deployment allows it (ALLOW_LOOPBACK_TARGETS).
 */
import ipaddr from 'ipaddr.js';

/** The addresses cloud providers serve instance metadata (and credentials) from. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** What each refused range is called in a refusal. */
const RANGE_WORDS: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  uniqueLocal: 'a unique-local address',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
};

/** An IP literal as a URL's hostname carries it (IPv6 in brackets), or null for a name. */
export function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

/** The IPv4 address an IPv6 one stands for (mapped, NAT64, 6to4, Teredo), or null. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return ipaddr.IPv4.parse(parts.slice(12).join('.'));
    case '6to4':
      return ipaddr.IPv4.parse(parts.slice(2, 6).join('.'));
    case 'teredo':
      return ipaddr.IPv4.parse(
        parts
          .slice(12)
          .map((byte) => byte ^ 0xff)
          .join('.'),
      );
    default:
      return null;
  }
}

/**
 * What kind of address `address` (an IPv4 or IPv6 literal, without brackets) is when it may not
 * receive a webhook (`a private address`), or null when it may: a public unicast address, or
 * loopback when `allowLoopback`.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const ipv4 = parsed.kind() === 'ipv6' ? embeddedIpv4(parsed as ipaddr.IPv6) : null;
  const checked = ipv4 ?? parsed;
  if (METADATA_ADDRESSES.has(checked.toString())) return 'a cloud metadata address';
  const range = checked.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && allowLoopback) return null;
  return RANGE_WORDS[range] ?? `a reserved address (${range})`;
}

/** Whether a host name is a loopback name (`localhost` and names under it, RFC 6761). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why a host *name* (not an IP literal) cannot be public, or null when it may be: names for
 * local networks and cloud-internal services (`*.internal` holds `metadata.google.internal`,
 * `*.local`, `*.home.arpa`, single labels) never resolve to a public host.
 */
export function hostNameRefusal(hostname: string, allowLoopback: boolean): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (isLoopbackName(name)) return allowLoopback ? null : `${hostname} is a loopback name`;
  if (!name.includes('.')) return `${hostname} is not a public host name`;
  for (const suffix of ['.internal', '.local', '.home.arpa', '.lan', '.intranet', '.corp']) {
    if (name.endsWith(suffix)) return `${hostname} is a local or cloud-internal name (${suffix})`;
  }
  return null;
}

/**
 * Why `url` may not be a webhook target's address before any name is resolved (its scheme, an
 * IP literal, a local name), or null. Plain http is for a loopback host when `allowLoopback`.
 */
export function webhookUrlRefusal(url: URL, allowLoopback: boolean): string | null {
  if (url.username || url.password) return 'a webhook URL may not carry a user name or password';
  const literal = ipLiteral(url.hostname);
  const loopback = literal ? ipaddr.parse(literal).range() === 'loopback' : isLoopbackName(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && allowLoopback)) {
    return allowLoopback ? 'https, or plain http to a loopback host only' : 'https only';
  }
  if (!literal) return hostNameRefusal(url.hostname, allowLoopback);
  const refused = addressRefusal(literal, allowLoopback);
  return refused && `${literal} is ${refused}`;
}
