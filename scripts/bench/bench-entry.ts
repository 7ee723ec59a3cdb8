/**
 * The Worker as `npm run bench` runs it: the production Worker, unchanged, plus five routes
 * under /__bench/ that do only what some scenario's every request cannot avoid. Measured
 * beside the scenarios, they are each target's ceiling on this machine (see
 * scenarios/ceilings.ts). This entry is never deployed: wrangler.toml points at functions/.
 *
 * - GET /__bench/sql: one SQL round trip (`select 1`) through the Worker's HTTP query path.
 * - GET /__bench/caller/:projectId: the management API's caller lookup (the bearer token with
 *   its membership of that project) and nothing else.
 * - POST /__bench/exchange-call/:appSlug: the exchange's one unavoidable step and nothing else:
 *   the code of a JSON body `{"code"}` hashed, counted and redeemed in the app's object by the
 *   exchange's own function (its limits, its client), and its record parsed. The scenario gives
 *   it codes minted by the same browser flow as the exchange's, so both redeem alike records.
 * - POST /__bench/exchange-work/:appSlug: the exchange's every step without the HTTP framework:
 *   the object call above, then the same function the route calls to check the verifier,
 *   decrypt the refresh token and sign the access token (`exchangeCode`), answered as JSON.
 * - POST /__bench/redeem/:appSlug: the object call for an unknown code (nothing found, nothing
 *   deleted), the ceiling the earlier runs used; kept for comparison.
 * - POST /__bench/connect-work/:database: what a connect (POST .../connections of a database)
 *   cannot avoid: its two metadata round trips (as `select 1`) around the login's statements,
 *   made by the adapter the connect calls (`createLogin` at level connect: a new admin session
 *   on the cluster through the Worker's driver, its SCRAM login and one multi-statement query).
 */
import { sql } from 'drizzle-orm';
import { createHttpDb } from '../../db/client';
import type { Bindings } from '../../functions/config';
import { buildDependencies } from '../../functions/container';
import { clientKey } from '../../functions/domain/client-key';
import type { ProvisioningMessage } from '../../functions/domain/queue-messages';
import { regionOf } from '../../functions/domain/regions';
import worker from '../../functions/index';
import { customerCluster } from '../../functions/kinds/postgresql/postgresql-system';
import { loadConfig } from '../../functions/kinds/registry';
import { OAuthError } from '../../functions/lib/oauth-error';
import { resolveCaller } from '../../functions/use-cases/caller/api-caller';
import { countAndRedeemCode } from '../../functions/use-cases/sign-in/code-regions';
import { countExchange, exchangeCode } from '../../functions/use-cases/sign-in/exchange';

export { OneTimeCodes, RateCounter } from '../../functions/index';

const PREFIX = '/__bench/';

/** The region every bench request arrives from: a local run's, as the Worker chooses it (no `cf`). */
const BENCH_REGION = regionOf(undefined);

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function ceiling(request: Request, env: Bindings, path: string): Promise<Response> {
  const config = loadConfig(env);
  const reads = () => createHttpDb(config.DATABASE_URL, config.NEON_HTTP_ENDPOINT);
  const [route, arg = ''] = path.slice(PREFIX.length).split('/');
  if (route === 'sql' && request.method === 'GET') {
    const result = await reads().execute(sql`select 1 as one`);
    return json({ one: result.rows[0]?.one });
  }
  if (route === 'caller' && request.method === 'GET') {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const { principal, membership } = await resolveCaller(reads(), config, token, arg);
    return json({ caller: principal.type, role: membership?.role ?? null });
  }
  if (route === 'exchange-call' && request.method === 'POST') {
    const { code } = (await request.json()) as { code: string };
    const client = clientKey(request.headers.get(config.CLIENT_IP_HEADER) ?? '');
    const { taken } = await countExchange(buildDependencies(env), {
      slug: arg,
      client,
      code,
      region: BENCH_REGION,
    });
    // Only a live code's redemption is the exchange's step: anything else is not a ceiling.
    return json({ redeemed: taken !== null }, taken === null ? 409 : 200);
  }
  if (route === 'exchange-work' && request.method === 'POST') {
    const input = (await request.json()) as { code: string; code_verifier: string };
    const client = clientKey(request.headers.get(config.CLIENT_IP_HEADER) ?? '');
    const { taken } = await countExchange(buildDependencies(env), {
      slug: arg,
      client,
      code: input.code,
      region: BENCH_REGION,
    });
    try {
      return json(await exchangeCode({ config }, { slug: arg, input, taken }));
    } catch (err) {
      if (err instanceof OAuthError) return json({ error: err.message }, err.status);
      throw err;
    }
  }
  if (route === 'redeem' && request.method === 'POST') {
    // The exchange's client window with a limit never reached: its write, never a 429.
    const checks = [{ key: 'client:bench', limit: Number.MAX_SAFE_INTEGER }];
    const { taken } = await countAndRedeemCode(buildDependencies(env), {
      slug: arg,
      checks,
      code: crypto.randomUUID(),
      region: BENCH_REGION,
    });
    return json({ redeemed: taken !== null });
  }
  if (route === 'connect-work' && request.method === 'POST') {
    const db = reads();
    await db.execute(sql`select 1 as one`);
    const cluster = customerCluster.adapter(buildDependencies(env).adapters);
    const { name } = await cluster.createLogin(arg, 'connect', true);
    await db.execute(sql`select 1 as one`);
    return json({ name }, 201);
  }
  return json({ error: 'no such ceiling' }, 404);
}

export default {
  ...worker,
  fetch(request: Request, env: Bindings, ctx: ExecutionContext): Response | Promise<Response> {
    // A string test, so the scenarios' own requests pay nothing for this wrapper.
    const at = request.url.indexOf(PREFIX);
    if (at === -1) return worker.fetch(request, env, ctx);
    return ceiling(request, env, new URL(request.url).pathname);
  },
} satisfies ExportedHandler<Bindings, ProvisioningMessage>;
