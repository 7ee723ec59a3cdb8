/**
 * MongoDB database users through the MongoDB Atlas Administration API v2 (versioned media type
 * `application/vnd.atlas.2023-01-01+json`), authenticated as an Atlas service account: OAuth 2.0
 * client credentials at `{origin}/api/oauth/token` (HTTP Basic with the client id and secret),
 * then `Authorization: Bearer <access_token>` on every call. Service accounts are what Atlas
 * recommends over the legacy HTTP-Digest API keys, and a bearer token needs no challenge round
 * trip from a Worker.
 *
 * MONGODB_ADMIN_URL is the project's API base, `https://cloud.mongodb.com/api/atlas/v2/groups/<groupId>`;
 * MONGODB_ADMIN_KEY is `<clientId>:<clientSecret>`.
 *
 * Calls made (paths below the group):
 * - POST   /databaseUsers                         create (`databaseName: "admin"`, SCRAM password)
 * - PATCH  /databaseUsers/admin/{username}        change `roles` or `password`
 * - DELETE /databaseUsers/admin/{username}        delete (404 means already gone)
 * - GET    /databaseUsers?itemsPerPage=500&pageNum=N   list (for the reconciler)
 */
import { z } from 'zod';

/** The Atlas API version this adapter speaks. */
export const ATLAS_MEDIA_TYPE = 'application/vnd.atlas.2023-01-01+json';

/** A database user role, as Atlas documents it. */
export const AtlasRoleSchema = z.object({
  roleName: z.string(),
  databaseName: z.string(),
  collectionName: z.string().optional(),
});

/** The body of POST /groups/{groupId}/databaseUsers, as Atlas documents it (fields this service sends). */
export const AtlasCreateUserSchema = z.object({
  databaseName: z.literal('admin'),
  groupId: z.string().min(1),
  username: z.string().min(1),
  password: z.string().min(8),
  roles: z.array(AtlasRoleSchema).min(1),
  labels: z.array(z.object({ key: z.string(), value: z.string() })).optional(),
  /** Atlas deletes the user at this time (ISO 8601); set for an expiring named principal. */
  deleteAfterDate: z.string().optional(),
  /**
   * MongoDB's per-user source restriction (createUser's `authenticationRestrictions`), which
   * contract §7 names for a principal's allowlist; sent only for a non-empty allowlist. Atlas's
   * public CloudDatabaseUser reference does not list it: an admin API that refuses it answers
   * 400 INVALID_ATTRIBUTE, and the principal is refused with nothing made (README).
   */
  authenticationRestrictions: z.array(z.object({ clientSource: z.array(z.string()).min(1) })).optional(),
});

/** The body of PATCH /groups/{groupId}/databaseUsers/{databaseName}/{username}. */
export const AtlasUpdateUserSchema = z
  .object({ password: z.string().min(8).optional(), roles: z.array(AtlasRoleSchema).min(1).optional() })
  .refine((b) => b.password !== undefined || b.roles !== undefined, 'nothing to update');

const ListSchema = z.object({
  results: z.array(
    z.object({
      username: z.string(),
      roles: z.array(AtlasRoleSchema).default([]),
      labels: z.array(z.object({ key: z.string(), value: z.string() })).default([]),
    }),
  ),
  totalCount: z.number().optional(),
});

/** A MongoDB level as the cluster sees it. */
export type MongoLevel = 'read-only' | 'connect';

/** The Atlas role for a level, on one database only. */
export const mongoRoles = (database: string, level: MongoLevel) => [
  { roleName: level === 'connect' ? 'readWrite' : 'read', databaseName: database },
];

/** A connection user as listed by the admin API. */
export interface MongoUser {
  username: string;
  databases: string[];
  createdAt: Date | null;
}

/**
 * What the services need from a MongoDB admin system. Production: AtlasMongoAdmin; locally it
 * talks to the wire-compatible stand-in in scripts/local/stand-ins/mongodb-atlas-stand-in.ts.
 */
export interface MongoAdmin {
  createUser(
    database: string,
    username: string,
    password: string,
    level: MongoLevel,
    limits?: UserLimits,
  ): Promise<void>;
  setUserLevel(database: string, username: string, level: MongoLevel): Promise<void>;
  setUserPassword(username: string, password: string): Promise<void>;
  /** Idempotent: a missing user is not an error. */
  dropUser(username: string): Promise<void>;
  listUsers(): Promise<MongoUser[]>;
}

/** A named principal's limits, enforced by the admin side itself (deleteAfterDate, clientSource). */
export interface UserLimits {
  expiresAt: Date | null;
  /** CIDRs the user may authenticate from; empty: any source. */
  allowedSources: readonly string[];
}

/** How many times a call Atlas refused with 429 is sent. */
const ATLAS_ATTEMPTS = 3;
/** The longest one wait for Atlas's rate limit inside a request. */
const ATLAS_MAX_WAIT_MS = 3_000;

/** An error answered by the admin API, with its HTTP status and Atlas errorCode. */
export class AtlasError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    /** The start of Atlas's error body (its `detail` and `parameters` name a refused attribute; never a password). */
    readonly detail = '',
    /** Set when Atlas was limiting the request rate (429): seconds to wait before trying again. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Label carrying a user's creation time, so the reconciler can tell orphans from users still being recorded. */
export const CREATED_LABEL = 'tether-created';

/**
 * Access tokens by token endpoint and service account, kept for the isolate's life: an adapter
 * is made per request, and Atlas lets a service account hold at most 100 live tokens (each
 * valid an hour), so fetching one per adapter would soon be refused. Only settled tokens are
 * kept (a pending fetch belongs to the request that started it).
 */
const tokens = new Map<string, { value: string; expiresAt: number }>();

/** The Atlas Administration API v2 adapter. */
export class AtlasMongoAdmin implements MongoAdmin {
  private readonly base: string;
  private readonly groupId: string;

  constructor(
    baseUrl: string,
    private readonly clientKey: string,
    // Wrapped: workerd refuses a global fetch called as a method of another object (Illegal invocation).
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
    /** Waits between attempts of a rate-limited call (tests pass their own clock). */
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
    const match = /\/groups\/([^/]+)$/.exec(new URL(this.base).pathname);
    if (!match?.[1]) throw new Error('MONGODB_ADMIN_URL must end in /api/atlas/v2/groups/<groupId>');
    this.groupId = decodeURIComponent(match[1]);
  }

  async createUser(
    database: string,
    username: string,
    password: string,
    level: MongoLevel,
    limits?: UserLimits,
  ): Promise<void> {
    const body = AtlasCreateUserSchema.parse({
      databaseName: 'admin',
      groupId: this.groupId,
      username,
      password,
      roles: mongoRoles(database, level),
      labels: [{ key: CREATED_LABEL, value: new Date().toISOString() }],
      ...(limits?.expiresAt ? { deleteAfterDate: limits.expiresAt.toISOString() } : {}),
      ...(limits?.allowedSources.length
        ? { authenticationRestrictions: [{ clientSource: [...limits.allowedSources] }] }
        : {}),
    });
    await this.call('POST', '/databaseUsers', body);
  }

  async setUserLevel(database: string, username: string, level: MongoLevel): Promise<void> {
    await this.call('PATCH', this.userPath(username), { roles: mongoRoles(database, level) });
  }

  async setUserPassword(username: string, password: string): Promise<void> {
    await this.call('PATCH', this.userPath(username), { password });
  }

  async dropUser(username: string): Promise<void> {
    await this.call('DELETE', this.userPath(username), undefined, [404]);
  }

  async listUsers(): Promise<MongoUser[]> {
    const users: MongoUser[] = [];
    for (let page = 1; page < 1000; page++) {
      const res = await this.call('GET', `/databaseUsers?itemsPerPage=500&pageNum=${page}`);
      const list = ListSchema.parse(await res.json());
      for (const u of list.results) {
        const stamp = u.labels.find((l) => l.key === CREATED_LABEL)?.value;
        const createdAt = stamp ? new Date(stamp) : null;
        users.push({
          username: u.username,
          databases: u.roles.map((r) => r.databaseName),
          createdAt: createdAt && !Number.isNaN(createdAt.getTime()) ? createdAt : null,
        });
      }
      if (list.results.length < 500) break;
    }
    return users;
  }

  private userPath(username: string): string {
    return `/databaseUsers/admin/${encodeURIComponent(username)}`;
  }

  private async bearer(): Promise<string> {
    const tokenUrl = `${new URL(this.base).origin}/api/oauth/token`;
    const key = `${tokenUrl} ${this.clientKey}`;
    const cached = tokens.get(key);
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.value;
    const res = await this.fetcher(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(this.clientKey)}`,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    if (!res.ok) throw new Error(`Atlas token request answered ${res.status}`);
    const body = z.object({ access_token: z.string(), expires_in: z.number() }).parse(await res.json());
    tokens.set(key, { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 });
    return body.access_token;
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    tolerated: number[] = [],
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const res = await this.fetcher(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${await this.bearer()}`,
          accept: ATLAS_MEDIA_TYPE,
          ...(body === undefined ? {} : { 'content-type': ATLAS_MEDIA_TYPE }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.ok || tolerated.includes(res.status)) return res;
      // Atlas error bodies carry errorCode and detail, never the password we sent.
      const detail = await res.text().catch(() => '');
      const code = /"errorCode"\s*:\s*"([A-Z_]+)"/.exec(detail)?.[1] ?? 'UNKNOWN';
      const message = `Atlas ${method} ${path.split('?')[0]} answered ${res.status} ${code}`;
      if (res.status !== 429) throw new AtlasError(res.status, code, message, detail.slice(0, 500));
      // A 429 did nothing, so sending it again is safe. Atlas asks for at least Retry-After
      // (absent at times) and longer after each refusal; jitter keeps throttled callers apart.
      // A wait longer than a request should hold becomes the caller's Retry-After instead.
      const asked = Number(res.headers.get('retry-after'));
      const seconds = Number.isFinite(asked) && asked > 0 ? asked : 2 ** attempt;
      const waitMs = Math.max(seconds * 1000, 500 * 2 ** attempt) * (1 + Math.random() / 4);
      if (attempt >= ATLAS_ATTEMPTS || waitMs > ATLAS_MAX_WAIT_MS)
        throw new AtlasError(429, code, message, detail.slice(0, 500), Math.ceil(seconds));
      await this.sleep(waitMs);
    }
  }
}
