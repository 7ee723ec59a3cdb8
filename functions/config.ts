/**
 * The Worker's variables and secrets, parsed once per isolate with zod (`mergeConfig`: the core
 * ones here, each engine's and kind's own from the slice it brings, merged by kinds/registry.ts
 * loadConfig; the Durable Object and Queue bindings are checked by bindings.ts). A missing or
 * malformed one is an {@link EnvironmentError} naming it, answered as 500 BAD_ENVIRONMENT,
 * instead of an `undefined` deep inside a handler.
 */
import { z } from 'zod';
import type { ProvisioningMessage } from './domain/queue-messages';
import { parseSignupPolicy, type SignupPolicy } from './domain/signup-policy';
import { Keyring } from './lib/crypto';
import type { OneTimeCodes } from './objects/one-time-codes-object';
import type { RateCounter } from './objects/rate-counter';

/** Bindings declared in wrangler.toml plus vars and secrets. */
export interface Bindings {
  ONE_TIME_CODES: DurableObjectNamespace<OneTimeCodes>;
  RATE_COUNTERS: DurableObjectNamespace<RateCounter>;
  PROVISIONING: Queue<ProvisioningMessage>;
  [name: string]: unknown;
}

/** The environment lacks a variable, secret or binding, or one is malformed. */
export class EnvironmentError extends Error {
  /** The names of the variables or bindings at fault. */
  readonly names: string[];

  constructor(names: string[]) {
    super(`Tether configuration is incomplete or malformed: ${names.join(', ')}`);
    this.names = names;
  }
}

/** The shortest OPERATOR_TOKEN honoured (contract §9). */
export const OPERATOR_TOKEN_MIN_LENGTH = 32;

const optionalUrl = z.string().url().optional();

/** Google's published ID-token keys and its issuers: the defaults, and what `npm start` accepts beside its stand-in's. */
export const GOOGLE_PUBLISHED = {
  jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
  issuers: 'https://accounts.google.com,accounts.google.com',
} as const;

/** Splits a comma list, dropping blanks. */
const commaList = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A comma list of one or more URLs. */
const urlList = z.string().refine((raw) => {
  const urls = commaList(raw);
  return urls.length > 0 && urls.every((url) => z.string().url().safeParse(url).success);
}, 'URLs, comma separated');

const ConfigSchema = z.object({
  DATABASE_URL: z.string().min(1),
  /** Live principals one database may hold (contract §9, The shared cluster): 409 LIMIT_REACHED past it. */
  MAX_PRINCIPALS_PER_DATABASE: z.coerce.number().int().min(1).default(20),
  /** Live databases one project may hold (contract §9, The shared cluster): 409 LIMIT_REACHED past it. */
  MAX_DATABASES_PER_PROJECT: z.coerce.number().int().min(1).default(10),
  /** Browser sign-ins one auth app keeps in progress at once: a start past it is 503, none in progress is pushed out. */
  SIGN_IN_PENDING_PER_APP: z.coerce.number().int().min(16).default(32_000),
  NEON_WS_PROXY: z.string().optional(),
  NEON_HTTP_ENDPOINT: z.string().url().optional(),
  /** contract §9: honoured as given when at least 32 characters; shorter is BAD_ENVIRONMENT. */
  OPERATOR_TOKEN: z.string().min(OPERATOR_TOKEN_MIN_LENGTH),
  ENCRYPTION_KEYS: z.string().min(1),
  PUBLIC_BASE_URL: z.string().url(),
  PUBLIC_AUTH_URL: z.string().url(),
  GOOGLE_AUTHORIZE_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  /** One key set or several, comma separated: a token verifies against the first that holds its key (`npm start`: the stand-in's, then Google's). */
  GOOGLE_JWKS_URL: urlList.default(GOOGLE_PUBLISHED.jwksUrl),
  GOOGLE_ISSUERS: z.string().default(GOOGLE_PUBLISHED.issuers),
  GITHUB_AUTHORIZE_URL: z.string().url().default('https://github.com/login/oauth/authorize'),
  GITHUB_TOKEN_URL: z.string().url().default('https://github.com/login/oauth/access_token'),
  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  APPLE_AUTHORIZE_URL: z.string().url().default('https://appleid.apple.com/auth/authorize'),
  APPLE_TOKEN_URL: z.string().url().default('https://appleid.apple.com/auth/token'),
  APPLE_JWKS_URL: z.string().url().default('https://appleid.apple.com/auth/keys'),
  APPLE_ISSUER: z.string().default('https://appleid.apple.com'),
  CLIENT_IP_HEADER: z.string().default('CF-Connecting-IP'),
  /**
   * Where verified-link association files are fetched from: `<this>/<host>/.well-known/…` instead
   * of `https://<host>/.well-known/…` (tests serve them locally).
   */
  ASSOCIATION_FILES_URL: optionalUrl,
  /** Days the Activity record keeps an event (the minute reconciler purges older ones in bounded batches). */
  ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(400),
  /** How long a graceful rotation keeps the old secret at most (docs/contract.md §14). */
  ROTATION_GRACE_SECONDS: z.coerce.number().int().min(0).max(31_536_000).default(3600),
  /**
   * Webhook targets may name loopback hosts (plain http among them): `true` for local runs only
   * (`npm start` and the test stack set it); a deployed service sends only to public addresses.
   */
  ALLOW_LOOPBACK_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** The DNS-over-HTTPS service (JSON API) webhook hosts are resolved with before each send. */
  DNS_RESOLVER_URL: z.string().url().default('https://cloudflare-dns.com/dns-query'),
  RUNTIME_PATCH_URL: optionalUrl,
  RUNTIME_PATCH_SECRET: z.string().optional(),
  NETWORK_POLICY_URL: optionalUrl,
  NETWORK_POLICY_SECRET: z.string().optional(),
  /** Delivery targets' platform APIs (contract §11); tests and `npm start` point them at stand-ins. */
  CLOUDFLARE_API_URL: z.string().url().default('https://api.cloudflare.com/client/v4'),
  VERCEL_API_URL: z.string().url().default('https://api.vercel.com'),
  FLY_API_URL: z.string().url().default('https://api.machines.dev'),
  /** Who may make an account by signing in: `invite` (default), `open`, or a comma list of e-mail domains. */
  ACCOUNT_SIGNUP: z.string().default('invite'),
  INVITATION_WEBHOOK_URL: optionalUrl,
  INVITATION_WEBHOOK_SECRET: z.string().optional(),
  CONSOLE_GITHUB_CLIENT_ID: z.string().optional(),
  CONSOLE_GITHUB_CLIENT_SECRET: z.string().optional(),
  CONSOLE_GOOGLE_CLIENT_ID: z.string().optional(),
  CONSOLE_GOOGLE_CLIENT_SECRET: z.string().optional(),
  /** Minutes over which the reconciler's full checks cover everything once (a slice a tick); 1: all every tick. */
  RECONCILER_SWEEP_MINUTES: z.coerce.number().int().min(1).max(10_080).default(1440),
});

type ParsedVars = z.infer<typeof ConfigSchema>;

/** Where signed deliveries of one kind go: the receiver's URL and the secret they are signed with. */
export interface ReceiverTarget {
  url: string;
  secret: string;
}

/** The variables that come in pairs: both given or neither. */
type Paired =
  | 'RUNTIME_PATCH_URL'
  | 'RUNTIME_PATCH_SECRET'
  | 'NETWORK_POLICY_URL'
  | 'NETWORK_POLICY_SECRET'
  | 'INVITATION_WEBHOOK_URL'
  | 'INVITATION_WEBHOOK_SECRET'
  | 'CONSOLE_GITHUB_CLIENT_ID'
  | 'CONSOLE_GITHUB_CLIENT_SECRET'
  | 'CONSOLE_GOOGLE_CLIENT_ID'
  | 'CONSOLE_GOOGLE_CLIENT_SECRET';

/** The parsed configuration; each optional pair is one value, or null when neither half is set. */
export type Config = Omit<ParsedVars, Paired> & {
  keyring: Keyring;
  googleIssuers: string[];
  /** GOOGLE_JWKS_URL's key sets, in the order tried. */
  googleJwksUrls: string[];
  /** The runtime-patch receiver (contract §6); null: patches stay pending. */
  runtimePatch: ReceiverTarget | null;
  /** The network-policy receiver (contract §6); null: policies stay pending. */
  networkPolicy: ReceiverTarget | null;
  /** Who may make an account by signing in (ACCOUNT_SIGNUP). */
  signup: SignupPolicy;
  /** Where each invitation is also POSTed, signed, for the operator's mail sender; null: nowhere. */
  invitationWebhook: ReceiverTarget | null;
  /** The console's own OAuth clients, by provider name (`github`, `google`); absent: no button. */
  consoleClients: Record<string, { clientId: string; clientSecret: string }>;
  /** Each registered engine's or kind's own variables, by its name (read through its descriptor, kinds/outside-system.ts). */
  slices: Readonly<Record<string, unknown>>;
};

/** The names of a pair given by half: the half missing when the other is set; none when both or neither are. */
export function halfOfPair(values: Record<string, unknown>, a: string, b: string): string[] {
  if (values[a] && !values[b]) return [b];
  if (values[b] && !values[a]) return [a];
  return [];
}

/** Both halves of a pair, or null when neither is set; one half alone is named as missing. */
function pair<A extends Paired, B extends Paired>(
  vars: ParsedVars,
  a: A,
  b: B,
  missing: string[],
): [string, string] | null {
  missing.push(...halfOfPair(vars, a, b));
  const first = vars[a];
  const second = vars[b];
  return first && second ? [first, second] : null;
}

/**
 * The variables an engine or a kind reads of its own (kinds/outside-system.ts): their schema, with
 * defaults, and the checks across them; merged into the one configuration by the registry.
 */
export interface ConfigSlice<V = unknown> {
  /** The engine's or kind's name: the key of its variables in {@link Config.slices}. */
  readonly name: string;
  readonly schema: z.ZodType<V>;
  /** The names of its variables at fault together (half of a pair); [] when none. */
  check(vars: V): string[];
}

let cached: { source: unknown; slices: string; config: Config } | undefined;

/**
 * Parses the variables and secrets with the core schema and every slice's (cached per isolate);
 * throws an EnvironmentError naming each one at fault: the malformed or missing ones first, else
 * the halves of pairs given alone.
 */
export function mergeConfig(env: Bindings, slices: readonly ConfigSlice[]): Config {
  const sliceNames = slices.map((s) => s.name).join(',');
  if (cached?.source === env && cached.slices === sliceNames) return cached.config;
  const stringVars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === 'string' && v !== '') stringVars[k] = v;
  }
  const parsed = ConfigSchema.safeParse(stringVars);
  const parsedSlices = slices.map((slice) => slice.schema.safeParse(stringVars));
  const malformed = [parsed, ...parsedSlices].flatMap((p) =>
    p.success ? [] : p.error.issues.map((i) => i.path.join('.')),
  );
  if (!parsed.success || malformed.length > 0) throw new EnvironmentError(malformed);
  const vars = parsed.data;
  const missing: string[] = [];
  const runtimePatch = pair(vars, 'RUNTIME_PATCH_URL', 'RUNTIME_PATCH_SECRET', missing);
  const networkPolicy = pair(vars, 'NETWORK_POLICY_URL', 'NETWORK_POLICY_SECRET', missing);
  const invitationWebhook = pair(vars, 'INVITATION_WEBHOOK_URL', 'INVITATION_WEBHOOK_SECRET', missing);
  const consoleClients: Config['consoleClients'] = {};
  const github = pair(vars, 'CONSOLE_GITHUB_CLIENT_ID', 'CONSOLE_GITHUB_CLIENT_SECRET', missing);
  if (github) consoleClients.github = { clientId: github[0], clientSecret: github[1] };
  const google = pair(vars, 'CONSOLE_GOOGLE_CLIENT_ID', 'CONSOLE_GOOGLE_CLIENT_SECRET', missing);
  if (google) consoleClients.google = { clientId: google[0], clientSecret: google[1] };
  const signup = parseSignupPolicy(vars.ACCOUNT_SIGNUP);
  if (!signup) missing.push('ACCOUNT_SIGNUP');
  const sliceValues: Record<string, unknown> = {};
  slices.forEach((slice, i) => {
    const value = (parsedSlices[i] as { data: unknown }).data;
    missing.push(...slice.check(value));
    sliceValues[slice.name] = value;
  });
  if (missing.length > 0 || !signup) throw new EnvironmentError(missing);
  const {
    RUNTIME_PATCH_URL,
    RUNTIME_PATCH_SECRET,
    NETWORK_POLICY_URL,
    NETWORK_POLICY_SECRET,
    INVITATION_WEBHOOK_URL,
    INVITATION_WEBHOOK_SECRET,
    CONSOLE_GITHUB_CLIENT_ID,
    CONSOLE_GITHUB_CLIENT_SECRET,
    CONSOLE_GOOGLE_CLIENT_ID,
    CONSOLE_GOOGLE_CLIENT_SECRET,
    ...rest
  } = vars;
  const config: Config = {
    ...rest,
    keyring: new Keyring(vars.ENCRYPTION_KEYS),
    googleIssuers: commaList(vars.GOOGLE_ISSUERS),
    googleJwksUrls: commaList(vars.GOOGLE_JWKS_URL),
    runtimePatch: runtimePatch && { url: runtimePatch[0], secret: runtimePatch[1] },
    networkPolicy: networkPolicy && { url: networkPolicy[0], secret: networkPolicy[1] },
    signup,
    invitationWebhook: invitationWebhook && { url: invitationWebhook[0], secret: invitationWebhook[1] },
    consoleClients,
    slices: sliceValues,
  };
  cached = { source: env, slices: sliceNames, config };
  return config;
}
