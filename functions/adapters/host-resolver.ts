/**
 * Resolving a host name to its addresses, so a webhook's host is checked by the addresses it
 * stands for (docs/contract.md §9, "Webhook URLs"). A Worker has no resolver of its own, so the
 * real one asks a DNS-over-HTTPS service (RFC 8484's JSON form, DNS_RESOLVER_URL); tests hand
 * the webhook check a stub instead and never resolve a name outside the machine.
 */

/** How long one resolver question may take. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The resolver could not answer (unreachable, a server failure): the name's addresses are unknown. */
export class ResolverUnavailable extends Error {}

/** Resolves a host name to every IPv4 and IPv6 address it has (empty: none). */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}

interface DnsJsonAnswer {
  Status?: number;
  Answer?: Array<{ type?: number; data?: string }>;
}

/** DNS record types asked for: A and AAAA. */
const ADDRESS_TYPES = [
  { name: 'A', code: 1 },
  { name: 'AAAA', code: 28 },
] as const;

/** NXDOMAIN: the name does not exist (no addresses, not a failure). */
const NXDOMAIN = 3;

/** The real resolver: A and AAAA questions to a DNS-over-HTTPS service's JSON API. */
export class DnsOverHttpsResolver implements HostResolver {
  constructor(
    private readonly baseUrl: string,
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
  ) {}

  async resolve(hostname: string): Promise<string[]> {
    const answers = await Promise.all(ADDRESS_TYPES.map((type) => this.ask(hostname, type)));
    return answers.flat();
  }

  private async ask(hostname: string, type: (typeof ADDRESS_TYPES)[number]): Promise<string[]> {
    const url = new URL(this.baseUrl);
    url.searchParams.set('name', hostname);
    url.searchParams.set('type', type.name);
    let body: DnsJsonAnswer;
    try {
      const res = await this.fetcher(url.toString(), {
        headers: { accept: 'application/dns-json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS),
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw new ResolverUnavailable(`the DNS resolver answered ${res.status}`);
      }
      body = (await res.json()) as DnsJsonAnswer;
    } catch (err) {
      if (err instanceof ResolverUnavailable) throw err;
      throw new ResolverUnavailable(`the DNS resolver could not be reached to resolve ${hostname}`);
    }
    if (body.Status === NXDOMAIN) return [];
    if (body.Status !== 0) throw new ResolverUnavailable(`the DNS resolver failed to resolve ${hostname}`);
    return (body.Answer ?? [])
      .filter((answer) => answer.type === type.code && typeof answer.data === 'string')
      .map((answer) => answer.data as string);
  }
}
