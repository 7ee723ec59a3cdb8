/**
 * The Worker's environment, parsed once per isolate with zod. A missing binding or secret is a
 * clear startup error instead of an `undefined` deep inside a handler.
 */
import { z } from 'zod';
import { Keyring } from './lib/crypto';
import type { OneTimeCodes } from './objects/one-time-codes';
import type { RateCounter } from './objects/rate-counter';
import type { ProvisioningMessage } from './queues/messages';

/** Bindings declared in wrangler.toml plus vars and secrets. */
export interface Bindings {
  ONE_TIME_CODES: DurableObjectNamespace<OneTimeCodes>;
  RATE_COUNTERS: DurableObjectNamespace<RateCounter>;
  PROVISIONING: Queue<ProvisioningMessage>;
  [name: string]: unknown;
}

const optionalUrl = z.string().url().optional();

const ConfigSchema = z.object({
  DATABASE_URL: z.string().min(1),
  CUSTOMER_DB_ADMIN_URL: z.string().min(1),
  CUSTOMER_DB_PUBLIC_HOST: z.string().optional(),
  NEON_WS_PROXY: z.string().optional(),
  NEON_HTTP_ENDPOINT: z.string().url().optional(),
  OPERATOR_TOKEN: z.string().min(20),
  ENCRYPTION_KEYS: z.string().min(1),
  AUTH_SIGNING_JWK: z.string().min(1),
  PUBLIC_BASE_URL: z.string().url(),
  PUBLIC_AUTH_URL: z.string().url(),
  GOOGLE_AUTHORIZE_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: z.string().default('https://accounts.google.com,accounts.google.com'),
  GITHUB_AUTHORIZE_URL: z.string().url().default('https://github.com/login/oauth/authorize'),
  GITHUB_TOKEN_URL: z.string().url().default('https://github.com/login/oauth/access_token'),
  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  CLIENT_IP_HEADER: z.string().default('CF-Connecting-IP'),
  RUNTIME_PATCH_URL: optionalUrl,
  RUNTIME_PATCH_SECRET: z.string().optional(),
  NETWORK_POLICY_URL: optionalUrl,
  NETWORK_POLICY_SECRET: z.string().optional(),
  MONGODB_ADMIN_URL: optionalUrl,
  MONGODB_ADMIN_KEY: z.string().optional(),
  MONGODB_PUBLIC_HOST: z.string().default('mongodb.local:27017'),
  STORAGE_ENDPOINT: z.string().url().default('https://s3.amazonaws.com'),
  STORAGE_DEFAULT_REGION: z.string().default('us-east-1'),
  IAM_ENDPOINT: z.string().url().default('https://iam.amazonaws.com'),
  IAM_ACCESS_KEY_ID: z.string().optional(),
  IAM_SECRET_ACCESS_KEY: z.string().optional(),
});

/** The parsed configuration plus derived helpers. */
export type Config = z.infer<typeof ConfigSchema> & { keyring: Keyring; googleIssuers: string[] };

let cached: { source: unknown; config: Config } | undefined;

/** Parses the environment (cached per isolate); throws naming every missing or malformed variable. */
export function loadConfig(env: Bindings): Config {
  if (cached?.source === env) return cached.config;
  const stringVars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === 'string' && v !== '') stringVars[k] = v;
  }
  const parsed = ConfigSchema.safeParse(stringVars);
  if (!parsed.success) {
    const names = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    throw new Error(`Tether configuration is incomplete or malformed: ${names}`);
  }
  const config: Config = {
    ...parsed.data,
    keyring: new Keyring(parsed.data.ENCRYPTION_KEYS),
    googleIssuers: parsed.data.GOOGLE_ISSUERS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
  cached = { source: env, config };
  return config;
}
