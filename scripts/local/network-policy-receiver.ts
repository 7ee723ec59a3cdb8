/**
 * The local stack's own network-policy receiver (contract §7: under `npm start` with no
 * NETWORK_POLICY_URL, the local stack applies the host rules itself). It takes the Worker's
 * signed policy deliveries (contract §6) and writes each principal's source allowlist into the
 * embedded cluster's pg_hba.conf, ahead of every other rule, then reloads the configuration:
 *
 *   host all c_xxxxxxxx 203.0.113.0/24 scram-sha-256   (one line per allowed source)
 *   host all c_xxxxxxxx all reject                     (anywhere else)
 *
 * A principal without an allowlist gets no line (any source). Role names are unique on the
 * cluster, so `all` databases is exact. The rules it last applied are kept beside the cluster
 * so a restart keeps them. Never part of the production path, where the platform's network is
 * the receiver.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

const BEGIN = '# BEGIN tether principals (written by the local network-policy receiver; do not edit)';
const END = '# END tether principals';
const ROLE = /^c_[a-z0-9]{8}$/;
/** What one CIDR may look like here (already validated by the API; checked again before a config file). */
const CIDR = /^[0-9a-f:.]+\/\d{1,3}$/i;

/** A running receiver: the Worker's NETWORK_POLICY_URL and NETWORK_POLICY_SECRET. */
export interface NetworkPolicyReceiver {
  url: string;
  secret: string;
  stop(): Promise<void>;
}

type Principals = Array<{ username: string; allowed_sources: string[] }>;

/** The pg_hba.conf lines of every database's principals. */
export function hostRules(byDatabase: Record<string, Principals>): string[] {
  const lines: string[] = [];
  for (const principals of Object.values(byDatabase)) {
    for (const p of principals) {
      if (!ROLE.test(p.username) || p.allowed_sources.length === 0) continue;
      for (const source of p.allowed_sources)
        if (CIDR.test(source)) lines.push(`host all ${p.username} ${source} scram-sha-256`);
      lines.push(`host all ${p.username} all reject`);
    }
  }
  return lines;
}

/** `file`'s text with the managed block replaced by `lines` (at the very top: first match wins). */
export function withManagedBlock(text: string, lines: string[]): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const rest = start >= 0 && end > start ? text.slice(0, start) + text.slice(end + END.length + 1) : text;
  return lines.length === 0 ? rest : `${BEGIN}\n${lines.join('\n')}\n${END}\n${rest}`;
}

function verified(secret: string, header: string | undefined, body: string): boolean {
  const m = /^t=(\d+),sha256=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const age = Math.abs(Date.now() / 1000 - Number(m[1]));
  const want = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  return age <= 300 && timingSafeEqual(want, Buffer.from(m[2] as string, 'hex'));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the receiver on 127.0.0.1 for the cluster whose folder is `pgDir`, reloading it
 * through `superuserUrl`.
 */
export async function startNetworkPolicyReceiver(opts: {
  pgDir: string;
  superuserUrl: string;
  stateFile: string;
}): Promise<NetworkPolicyReceiver> {
  const secret = randomBytes(32).toString('hex');
  let state: Record<string, Principals> = {};
  try {
    state = JSON.parse(await readFile(opts.stateFile, 'utf8')) as Record<string, Principals>;
  } catch {
    // first run
  }
  const hba = join(opts.pgDir, 'pg_hba.conf');
  let applying = Promise.resolve();
  const apply = async (): Promise<void> => {
    const text = await readFile(hba, 'utf8');
    const next = withManagedBlock(text, hostRules(state));
    if (next !== text) {
      await writeFile(`${hba}.tether`, next, { mode: 0o600 });
      await rename(`${hba}.tether`, hba);
    }
    await writeFile(opts.stateFile, JSON.stringify(state), { mode: 0o600 });
    const client = new pg.Client({ connectionString: opts.superuserUrl });
    await client.connect();
    try {
      await client.query('select pg_catalog.pg_reload_conf()');
    } finally {
      await client.end();
    }
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method !== 'POST' || !verified(secret, req.headers['x-signature'] as string | undefined, body))
        return void res.writeHead(401).end();
      try {
        const policy = JSON.parse(body) as { database_id: string; principals?: Principals };
        state[policy.database_id] = policy.principals ?? [];
        // One write at a time: two deliveries must not interleave their edits of the file.
        applying = applying.then(apply, apply);
        await applying;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"applied":true}');
      } catch (err) {
        console.error('[tether] applying a network policy failed:', err);
        res.writeHead(500).end();
      }
    })();
  });
  await apply().catch((err: unknown) => console.error('[tether] applying kept host rules failed:', err));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/network-policy`,
    secret,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
