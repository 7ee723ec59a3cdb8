/**
 * The key a client is rate-limited by: what an attacker cannot vary cheaply. An IPv4 address is
 * counted as itself; an IPv6 address by its /64, since one subscriber is routinely handed a
 * whole /64 (RFC 6177) and could otherwise rotate through 2^64 addresses.
 */

const IPV4_RE =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/;

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included), or null. */
function ipv6Groups(text: string): number[] | null {
  let address = text.toLowerCase();
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(address) || !address.includes(':')) return null;
  const tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    if (!IPV4_RE.test(last)) return null;
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    // Keep a `::` that ends right before the IPv4 part; drop a lone separating colon.
    const head = address.slice(0, lastColon + 1);
    address = head.endsWith('::') ? head : head.slice(0, -1);
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
    return groups.map((g) => Number.parseInt(g, 16));
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  return [...head, ...Array(8 - given).fill(0), ...rest, ...tail];
}

/**
 * The rate-limit key of the address a request came from: `ip4:<address>`, `ip6:<first 64 bits>/64`
 * (an IPv4-mapped IPv6 address counts as its IPv4 address), or the value itself, trimmed and
 * cut to 64 characters, when it is not an address (only local runs name clients otherwise).
 */
export function clientKey(address: string): string {
  const text = address.trim();
  if (IPV4_RE.test(text)) return `ip4:${text}`;
  const groups = ipv6Groups(text.replace(/^\[|\]$/g, ''));
  if (groups) {
    const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
    if (mapped) {
      const [hi, lo] = [groups[6] as number, groups[7] as number];
      return `ip4:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    }
    return `ip6:${groups
      .slice(0, 4)
      .map((g) => g.toString(16))
      .join(':')}::/64`;
  }
  return text.slice(0, 64) || 'unknown';
}
