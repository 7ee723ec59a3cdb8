/**
 * A local stand-in for the part of the MongoDB Atlas Administration API v2 that Tether uses:
 * service-account tokens and database users. It validates every request against the documented
 * wire shape (written here from Atlas's reference, independently of the adapter) and keeps users
 * in memory, optionally in a JSON file. Started by the local stack when no MONGODB_ADMIN_URL is
 * given; never part of the production path.
 *
 * One field beyond Atlas's reference: `authenticationRestrictions` (MongoDB's createUser field,
 * `[{clientSource:[CIDR]}]`), which contract §7 names for a principal's source allowlist. The
 * stand-in takes it and enforces it in {@link AtlasStandIn.authenticates}, as MongoDB does;
 * with `acceptsAuthenticationRestrictions` false it refuses it as Atlas's public reference
 * implies (400 INVALID_ATTRIBUTE naming it), so tests cover both admin sides.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateUser, MEDIA, type StoredUser, UpdateUser, within } from './mongodb-atlas-shapes';
import { type RateLimit, Throttle } from './throttle';

/** Atlas's limit of database users in one project (createDatabaseUser's reference). */
export const ATLAS_MAX_USERS = 100;

/** A running stand-in. */
export interface AtlasStandIn {
  /** Value for MONGODB_ADMIN_URL (`.../api/atlas/v2/groups/<groupId>`). */
  adminUrl: string;
  /** Value for MONGODB_ADMIN_KEY (`clientId:clientSecret`). */
  adminKey: string;
  /** Whether `username` exists with `password` and exactly these roles (for tests). */
  user(username: string): StoredUser | undefined;
  /**
   * Whether a SCRAM login as `username` with `password` from address `from` (default
   * 127.0.0.1) would succeed now: the user exists, the password is its own, its
   * deleteAfterDate has not passed (Atlas deletes it then) and, when it has
   * authenticationRestrictions, one of them lists a clientSource range holding `from`.
   */
  authenticates(username: string, password: string, from?: string): boolean;
  /** The password `username` may log in with from `from` now (the rules of {@link authenticates}), else undefined. */
  passwordFor(username: string, from: string): string | undefined;
  /** Whether users may carry `authenticationRestrictions` (default true); false refuses the field. */
  acceptsAuthenticationRestrictions: boolean;
  /** Adds users as another tool would until the project holds Atlas's limit; returns how many it holds. */
  fillToLimit(): number;
  /** Every request body received, for shape checks in tests. */
  requests: Array<{ method: string; path: string; body: unknown }>;
  /** How many access tokens it has issued. */
  tokensIssued(): number;
  /** The request rate limit (429 RATE_LIMITED_TOKEN_BUCKET with Retry-After past it); tests queue refusals on it. */
  throttle: Throttle;
  stop(): Promise<void>;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': MEDIA });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

function fail(
  res: ServerResponse,
  status: number,
  errorCode: string,
  detail: string,
  reason = errorCode,
): void {
  send(res, status, { error: status, errorCode, detail, parameters: [], reason });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Starts the stand-in on 127.0.0.1 (a free port unless given). */
export async function startAtlasStandIn(
  opts: { port?: number; stateFile?: string; rateLimit?: RateLimit } = {},
): Promise<AtlasStandIn> {
  const throttle = new Throttle(opts.rateLimit);
  const groupId = randomBytes(12).toString('hex');
  const clientId = `mdb_sa_id_${randomBytes(8).toString('hex')}`;
  const clientSecret = `mdb_sa_sk_${randomBytes(20).toString('hex')}`;
  const tokens = new Set<string>();
  const users = new Map<string, StoredUser>();
  const requests: AtlasStandIn['requests'] = [];
  if (opts.stateFile) {
    try {
      for (const u of JSON.parse(readFileSync(opts.stateFile, 'utf8')) as StoredUser[])
        users.set(u.username, u);
    } catch {
      // no state yet
    }
  }
  const save = () =>
    opts.stateFile && writeFileSync(opts.stateFile, JSON.stringify([...users.values()]), { mode: 0o600 });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => fail(res, 500, 'UNEXPECTED_ERROR', String(err)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const raw = await readBody(req);
    if (req.method === 'POST' && url.pathname === '/api/oauth/token') {
      const basic = req.headers.authorization?.replace(/^Basic /, '') ?? '';
      if (
        !same(basic, Buffer.from(`${clientId}:${clientSecret}`).toString('base64')) ||
        raw !== 'grant_type=client_credentials'
      )
        return fail(res, 401, 'INVALID_CLIENT', 'bad client credentials');
      const token = randomBytes(24).toString('base64url');
      tokens.add(token);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
    }
    const bearer = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (!tokens.has(bearer)) return fail(res, 401, 'NOT_AUTHENTICATED', 'missing or unknown bearer token');
    if (req.headers.accept !== MEDIA)
      return fail(res, 406, 'INVALID_VERSION_HEADER', `Accept must be ${MEDIA}`);
    const wait = throttle.take();
    if (wait > 0) {
      // Atlas's answer once an endpoint set's token bucket is empty (its "API Rate Limits" page).
      res.setHeader('retry-after', String(wait));
      return fail(
        res,
        429,
        'RATE_LIMITED_TOKEN_BUCKET',
        `Rate limit exceeded for ${url.pathname}. Please retry after ${wait} seconds.`,
        'Too Many Requests',
      );
    }
    const prefix = `/api/atlas/v2/groups/${groupId}/databaseUsers`;
    if (!url.pathname.startsWith(prefix)) return fail(res, 404, 'RESOURCE_NOT_FOUND', url.pathname);
    const rest = url.pathname.slice(prefix.length).split('/').filter(Boolean).map(decodeURIComponent);
    let body: unknown;
    if (raw) {
      if (req.headers['content-type'] !== MEDIA)
        return fail(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'bad content type');
      body = JSON.parse(raw);
    }
    requests.push({ method: req.method ?? '', path: url.pathname, body });
    // Atlas deletes a user once its deleteAfterDate has passed.
    for (const [name, u] of users)
      if (u.deleteAfterDate && Date.parse(u.deleteAfterDate) <= Date.now()) users.delete(name);

    if (req.method === 'GET' && rest.length === 0) {
      const per = Number(url.searchParams.get('itemsPerPage') ?? 100);
      const page = Number(url.searchParams.get('pageNum') ?? 1);
      const all = [...users.values()].map(({ password: _p, ...u }) => ({ ...u, groupId }));
      return send(res, 200, {
        results: all.slice((page - 1) * per, page * per),
        totalCount: all.length,
        links: [],
      });
    }
    if (
      !standIn.acceptsAuthenticationRestrictions &&
      typeof body === 'object' &&
      body !== null &&
      'authenticationRestrictions' in body
    )
      return fail(res, 400, 'INVALID_ATTRIBUTE', 'Invalid attribute authenticationRestrictions specified.');
    if (req.method === 'POST' && rest.length === 0) {
      const parsed = CreateUser.safeParse(body);
      if (!parsed.success || parsed.data.groupId !== groupId || !parsed.data.password)
        return fail(
          res,
          400,
          'INVALID_ATTRIBUTE',
          parsed.success ? 'groupId or password' : parsed.error.message,
        );
      if (users.has(parsed.data.username)) return fail(res, 409, 'USER_ALREADY_EXISTS', parsed.data.username);
      // Atlas's own answer at its limit (403, not 409), as its Admin API gives it.
      if (users.size >= ATLAS_MAX_USERS)
        return fail(
          res,
          403,
          'GROUP_USERS_LIMIT_EXCEEDED',
          `Groups can contain at most ${ATLAS_MAX_USERS} database users.`,
        );
      const u: StoredUser = {
        username: parsed.data.username,
        databaseName: parsed.data.databaseName,
        roles: parsed.data.roles ?? [],
        labels: parsed.data.labels ?? [],
        password: parsed.data.password,
        ...(parsed.data.deleteAfterDate ? { deleteAfterDate: parsed.data.deleteAfterDate } : {}),
        ...(parsed.data.authenticationRestrictions
          ? { authenticationRestrictions: parsed.data.authenticationRestrictions }
          : {}),
      };
      users.set(u.username, u);
      save();
      const { password: _p, ...shown } = u;
      return send(res, 201, { ...shown, groupId });
    }
    const [databaseName, username] = rest;
    if (rest.length !== 2 || databaseName !== 'admin' || !username)
      return fail(res, 404, 'RESOURCE_NOT_FOUND', url.pathname);
    const existing = users.get(username);
    if (!existing) return fail(res, 404, 'USERNAME_NOT_FOUND', username);
    if (req.method === 'DELETE') {
      users.delete(username);
      save();
      return send(res, 204);
    }
    if (req.method === 'PATCH') {
      const parsed = UpdateUser.safeParse(body);
      if (!parsed.success) return fail(res, 400, 'INVALID_ATTRIBUTE', parsed.error.message);
      if (parsed.data.roles) existing.roles = parsed.data.roles;
      if (parsed.data.password) existing.password = parsed.data.password;
      if (parsed.data.authenticationRestrictions)
        existing.authenticationRestrictions = parsed.data.authenticationRestrictions;
      save();
      const { password: _p, ...shown } = existing;
      return send(res, 200, { ...shown, groupId });
    }
    return fail(res, 405, 'METHOD_NOT_ALLOWED', req.method ?? '');
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: AtlasStandIn = {
    acceptsAuthenticationRestrictions: true,
    adminUrl: `http://127.0.0.1:${port}/api/atlas/v2/groups/${groupId}`,
    adminKey: `${clientId}:${clientSecret}`,
    user: (name) => users.get(name),
    passwordFor(name, from) {
      const u = users.get(name);
      if (!u || (u.deleteAfterDate && Date.parse(u.deleteAfterDate) <= Date.now())) return undefined;
      const restrictions = u.authenticationRestrictions ?? [];
      if (restrictions.length > 0 && !restrictions.some((r) => r.clientSource.some((c) => within(from, c))))
        return undefined;
      return u.password;
    },
    authenticates(name, password, from = '127.0.0.1') {
      const own = standIn.passwordFor(name, from);
      return own !== undefined && same(own, password);
    },
    fillToLimit() {
      while (users.size < ATLAS_MAX_USERS) {
        const username = `other_${randomBytes(6).toString('hex')}`;
        users.set(username, {
          username,
          databaseName: 'admin',
          roles: [],
          labels: [],
          password: randomBytes(12).toString('hex'),
        });
      }
      save();
      return users.size;
    },
    requests,
    tokensIssued: () => tokens.size,
    throttle,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standIn;
}
