/**
 * The exchange peer, run as its own Node process: `oidc-provider` (in-memory Map store) with one
 * public native client using PKCE, its token endpoint serving authorization_code grants.
 * Usage: `node --import tsx peer-oidc.ts <count> <out.json>`. It mints <count> codes through
 * the provider's own models (what its authorization endpoint stores after login and consent;
 * the interaction pages are not what is compared), writes {origin, requests} to <out.json>,
 * prints `ready` and serves until killed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import type { LoadRequest } from './types';

/** The client the peer's codes are issued to. */
export const PEER_CLIENT_ID = 'bench-native';
/** Its registered custom-scheme redirect URI. */
export const PEER_REDIRECT_URI = 'tetherbench://auth';

const USERS = 50;

const store = new Map<string, AdapterPayload>();
const grants = new Map<string, Set<string>>();

/**
 * An unbounded in-memory store: oidc-provider's own memory adapter is an LRU of 1,000 entries,
 * which would evict most pre-minted codes. Expiry is not enforced; a run lasts seconds.
 */
function mapAdapter(model: string): Adapter {
  const key = (id: string): string => `${model}:${id}`;
  return {
    async upsert(id, payload) {
      store.set(key(id), payload);
      if (payload.grantId) {
        const members = grants.get(payload.grantId) ?? new Set<string>();
        members.add(key(id));
        grants.set(payload.grantId, members);
      }
    },
    async find(id) {
      return store.get(key(id));
    },
    async findByUserCode() {
      return undefined;
    },
    async findByUid() {
      return undefined;
    },
    async consume(id) {
      const payload = store.get(key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      store.delete(key(id));
    },
    async revokeByGrantId(grantId) {
      for (const member of grants.get(grantId) ?? []) store.delete(member);
      grants.delete(grantId);
    },
  };
}

async function main(): Promise<void> {
  const [countArg, outPath] = process.argv.slice(2);
  const count = Number(countArg);
  if (!(Number.isInteger(count) && count > 0) || !outPath)
    throw new Error('usage: peer-oidc.ts <count> <out.json>');

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(origin, {
    adapter: mapAdapter,
    clients: [
      {
        client_id: PEER_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [PEER_REDIRECT_URI],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'peer', alg: 'RS256', use: 'sig' }] },
    pkce: { required: () => true },
    ttl: {
      AuthorizationCode: 600,
      AccessToken: 900,
      IdToken: 900,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: { devInteractions: { enabled: false } },
  });
  server.on('request', provider.callback());

  const client = await provider.Client.find(PEER_CLIENT_ID);
  if (!client) throw new Error('peer client not registered');
  const requests: LoadRequest[] = [];
  for (let i = 0; i < count; i++) {
    const accountId = `user-${i % USERS}`;
    const grant = new provider.Grant({ clientId: PEER_CLIENT_ID, accountId });
    grant.addOIDCScope('openid');
    const grantId = await grant.save();
    const verifier = randomBytes(32).toString('base64url');
    const code = await new provider.AuthorizationCode({
      client,
      accountId,
      grantId,
      gty: 'authorization_code',
      scope: 'openid',
      redirectUri: PEER_REDIRECT_URI,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      authTime: Math.floor(Date.now() / 1000),
    }).save();
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: PEER_REDIRECT_URI,
      client_id: PEER_CLIENT_ID,
    }).toString();
    requests.push({
      method: 'POST',
      path: '/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }
  await writeFile(outPath, JSON.stringify({ origin, requests }));
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
