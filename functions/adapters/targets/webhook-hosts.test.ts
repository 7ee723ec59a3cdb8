/**
 * Webhook targets send only to public hosts (docs/contract.md §9, "Webhook URLs"): the pure
 * rule on URLs and addresses, the check through the resolver seam (a stub: no name is resolved
 * outside this machine), DNS rebinding refused at send time before any request, the
 * DNS-over-HTTPS resolver's reading of answers (an injected fetch), and a failure's last_error
 * naming what failed without the receiver's body (a loopback server).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addressRefusal, webhookUrlRefusal } from '../../domain/public-address';
import { DnsOverHttpsResolver, type HostResolver, ResolverUnavailable } from '../host-resolver';
import { SignedHttpReceiver } from '../receiver';
import { TargetFieldRefused, TargetUnreachable } from './index';
import { webhookTarget } from './webhook';
import { checkWebhookHost } from './webhook-host';

const deployed = false;
const local = true;

/** A resolver that answers from a table and counts questions; no traffic. */
function stubResolver(answers: (name: string, asked: number) => string[]): HostResolver & { asked: number } {
  const stub = {
    asked: 0,
    async resolve(name: string) {
      stub.asked += 1;
      return answers(name, stub.asked);
    },
  };
  return stub;
}

const platformUrls = (resolver: HostResolver, allowLoopback = deployed) => ({
  cloudflare: 'http://127.0.0.1:1',
  vercel: 'http://127.0.0.1:1',
  fly: 'http://127.0.0.1:1',
  webhookHosts: { allowLoopback, resolver },
});

const patch = {
  siteId: 's',
  projectId: 'p',
  set: {},
  unset: [],
  reason: 'sync',
  seq: 1,
  body: '{}',
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a webhook URL naming an inward address is refused (SSRF)', () => {
  it.each([
    ['https://10.1.2.3/hook', 'a private address'],
    ['https://172.16.0.1/hook', 'a private address'],
    ['https://192.168.1.1/hook', 'a private address'],
    ['https://127.0.0.1/hook', 'a loopback address'],
    ['https://2130706433/hook', 'a loopback address'],
    ['https://0177.0.0.1/hook', 'a loopback address'],
    ['https://[::1]/hook', 'a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address'],
    ['https://[::ffff:169.254.169.254]/latest/meta-data/', 'a cloud metadata address'],
    ['https://169.254.1.1/hook', 'a link-local address'],
    ['https://[fe80::1]/hook', 'a link-local address'],
    ['https://100.64.0.1/hook', 'a carrier-grade NAT address'],
    ['https://[fc00::1]/hook', 'a unique-local address'],
    ['https://0.0.0.0/hook', 'the unspecified address'],
    ['https://[::]/hook', 'the unspecified address'],
    ['https://[::ffff:10.0.0.1]/hook', 'a private address'],
    ['https://[::ffff:127.0.0.1]/hook', 'a loopback address'],
    ['https://[64:ff9b::a00:1]/hook', 'a private address'],
    ['https://[2002:a9fe:a9fe::]/hook', 'a cloud metadata address'],
    ['https://224.0.0.1/hook', 'a multicast address'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'cloud-internal name'],
    ['https://printer.local/hook', 'cloud-internal name'],
    ['https://metadata/hook', 'not a public host name'],
    ['https://localhost/hook', 'a loopback name'],
    ['http://hooks.example.com/hook', 'https only'],
    ['http://127.0.0.1:8080/hook', 'https only'],
    ['https://user:pw@hooks.example.com/hook', 'user name or password'],
  ])('%s is refused in a deployed service (%s)', (url, reason) => {
    expect(webhookUrlRefusal(new URL(url), deployed)).toContain(reason);
  });

  it.each([
    'https://hooks.example.com/tether',
    'https://93.184.216.34/hook',
    'https://[2606:4700::1111]/hook',
  ])('%s is public and allowed', (url) => {
    expect(webhookUrlRefusal(new URL(url), deployed)).toBeNull();
  });

  it('plain http to a loopback host is allowed only with ALLOW_LOOPBACK_TARGETS, private addresses never', () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://[::1]:8080/hook',
      'http://localhost:8080/hook',
    ]) {
      expect(webhookUrlRefusal(new URL(url), local)).toBeNull();
      expect(webhookUrlRefusal(new URL(url), deployed)).not.toBeNull();
    }
    expect(webhookUrlRefusal(new URL('http://10.0.0.1/hook'), local)).toContain('loopback host only');
    expect(webhookUrlRefusal(new URL('https://10.0.0.1/hook'), local)).toContain('a private address');
    expect(addressRefusal('169.254.169.254', local)).toBe('a cloud metadata address');
  });
});

describe('the check resolves names through the resolver seam', () => {
  it('a name that resolves to a private or metadata address is refused when set', async () => {
    for (const inward of ['10.0.0.7', '169.254.169.254', 'fd00:ec2::254', '::ffff:192.168.0.1']) {
      const resolver = stubResolver(() => ['93.184.216.34', inward]);
      const refusal = checkWebhookHost('https://hooks.example.com/tether', {
        allowLoopback: deployed,
        resolver,
      });
      await expect(refusal).rejects.toBeInstanceOf(TargetFieldRefused);
      await expect(refusal).rejects.toThrow(`hooks.example.com resolves to ${inward}`);
    }
  });

  it('a name that resolves to nothing is refused; a resolver that cannot answer is unreachable', async () => {
    const none = stubResolver(() => []);
    await expect(
      checkWebhookHost('https://gone.example.com/', { allowLoopback: deployed, resolver: none }),
    ).rejects.toThrow('does not resolve');
    const down: HostResolver = {
      resolve: () => Promise.reject(new ResolverUnavailable('the DNS resolver answered 502')),
    };
    await expect(
      checkWebhookHost('https://hooks.example.com/', { allowLoopback: deployed, resolver: down }),
    ).rejects.toBeInstanceOf(TargetUnreachable);
  });

  it('a literal address is never resolved, a public name passes', async () => {
    const resolver = stubResolver(() => ['93.184.216.34', '2606:4700::1111']);
    await checkWebhookHost('https://93.184.216.34/hook', { allowLoopback: deployed, resolver });
    expect(resolver.asked).toBe(0);
    await checkWebhookHost('https://hooks.example.com/hook', { allowLoopback: deployed, resolver });
    expect(resolver.asked).toBe(1);
  });

  it('DNS rebinding: a name public when set and pointing at the metadata address later is refused at send time, before any request', async () => {
    const resolver = stubResolver((_name, asked) => (asked === 1 ? ['93.184.216.34'] : ['169.254.169.254']));
    const urls = platformUrls(resolver);
    const stored = {
      config: { url: 'https://rebind.example.com/hook' },
      secret: 'a-webhook-secret-of-some-length',
    };
    await webhookTarget.check(urls, stored);
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    await expect(webhookTarget.deliver(urls, stored, patch)).rejects.toThrow(
      'not sent: rebind.example.com resolves to 169.254.169.254, a cloud metadata address',
    );
    expect(resolver.asked).toBe(2);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('the DNS-over-HTTPS resolver', () => {
  /** A fetch answering each question from `answers` by type; records the URLs asked. */
  const fakeDoh = (answers: Record<string, unknown>, asked: string[] = []) =>
    (async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      asked.push(url.toString());
      const body = answers[url.searchParams.get('type') ?? ''];
      return body === 'down' ? new Response('no', { status: 502 }) : Response.json(body);
    }) as typeof fetch;

  it('asks A and AAAA of the configured base and keeps only address records', async () => {
    const asked: string[] = [];
    const resolver = new DnsOverHttpsResolver(
      'http://127.0.0.1:1/dns-query',
      fakeDoh(
        {
          A: {
            Status: 0,
            Answer: [
              { type: 5, data: 'alias.example.com.' },
              { type: 1, data: '10.0.0.9' },
            ],
          },
          AAAA: { Status: 0, Answer: [{ type: 28, data: 'fd00::9' }] },
        },
        asked,
      ),
    );
    expect(await resolver.resolve('hooks.example.com')).toEqual(['10.0.0.9', 'fd00::9']);
    expect(asked.sort()).toEqual([
      'http://127.0.0.1:1/dns-query?name=hooks.example.com&type=A',
      'http://127.0.0.1:1/dns-query?name=hooks.example.com&type=AAAA',
    ]);
  });

  it('NXDOMAIN is no address; a failing resolver is ResolverUnavailable', async () => {
    const nx = new DnsOverHttpsResolver(
      'http://127.0.0.1:1/q',
      fakeDoh({ A: { Status: 3 }, AAAA: { Status: 3 } }),
    );
    expect(await nx.resolve('gone.example.com')).toEqual([]);
    const servfail = new DnsOverHttpsResolver(
      'http://127.0.0.1:1/q',
      fakeDoh({ A: { Status: 2 }, AAAA: { Status: 0 } }),
    );
    await expect(servfail.resolve('x.example.com')).rejects.toBeInstanceOf(ResolverUnavailable);
    const down = new DnsOverHttpsResolver('http://127.0.0.1:1/q', fakeDoh({ A: 'down', AAAA: 'down' }));
    await expect(down.resolve('x.example.com')).rejects.toBeInstanceOf(ResolverUnavailable);
  });
});

describe("a failed webhook's last_error", () => {
  it('names what failed, never echoing the receiver body', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal-secret-stack-trace');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      const receiver = new SignedHttpReceiver(
        { url: `http://127.0.0.1:${port}/hook?token=q`, secret: 's'.repeat(32) },
        `the webhook at 127.0.0.1:${port}`,
      );
      await expect(receiver.send('{}')).rejects.toThrow(
        new Error(`the webhook at 127.0.0.1:${port} answered 500`),
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
