/**
 * A database engine as a plugin brings it, written from test code: `fakedb`, whose outside
 * system is a Map in this process reached through an admin client that must present the key the
 * deployment configures. It brings everything the registry needs: its config slice (FAKEDB_HOST,
 * FAKEDB_PORT, FAKEDB_ADMIN_KEY: a default, and a check across them), the factory of its admin adapter,
 * its variable family and values, provisioner and drift checks. `registerEngine(fakedb)` is its
 * one registry line.
 */
import { z } from 'zod';
import type { Adapters } from '../../functions/adapters';
import type { DatabaseLevel } from '../../functions/domain/levels';
import type { DatabaseEngine, Login } from '../../functions/kinds/database-engine';
import { defineSystem } from '../../functions/kinds/outside-system';
import { ApiError } from '../../functions/lib/errors';
import { randomLowerAlnum, randomPassword } from '../../functions/lib/ids';

/** A login the fake system holds. */
export interface FakeLogin {
  database: string;
  secret: string;
  level: DatabaseLevel;
  createdAt: Date;
}

/** The fake system itself: what it holds, the key it accepts, and the key each admin call came with. */
export const fakeServer = {
  logins: new Map<string, FakeLogin>(),
  databases: new Set<string>(),
  /** The admin key it accepts (the test sets it, and FAKEDB_ADMIN_KEY to match). */
  acceptedKey: '',
  /** The key of every admin call, in order. */
  callsBy: [] as string[],
};

/** The admin client of the fake system: every call presents its key, and a wrong one is refused. */
class FakeDbAdmin {
  constructor(private readonly key: string) {}

  /** The fake system's holdings, once it accepted the key. */
  private server() {
    fakeServer.callsBy.push(this.key);
    if (this.key !== fakeServer.acceptedKey) throw new Error('fakedb refused the admin key');
    return fakeServer;
  }

  createLogin(database: string, level: DatabaseLevel, login?: Login): Login & { made: boolean } {
    const { logins } = this.server();
    const user = login?.user ?? `c_${randomLowerAlnum(8)}`;
    if (logins.has(user)) return { user, secret: logins.get(user)?.secret ?? '', made: false };
    const secret = login?.secret ?? randomPassword();
    logins.set(user, { database, secret, level, createdAt: new Date() });
    return { user, secret, made: true };
  }

  setLevel(user: string, level: DatabaseLevel): void {
    const held = this.server().logins.get(user);
    if (held) held.level = level;
  }

  setSecret(user: string, secret: string): void {
    const held = this.server().logins.get(user);
    if (!held) throw new Error(`no login ${user}`);
    held.secret = secret;
  }

  dropLogin(user: string): void {
    this.server().logins.delete(user);
  }

  createDatabase(physical: string, main: Login): void {
    this.server().databases.add(physical);
    this.createLogin(physical, 'connect', main);
  }

  dropDatabase(physical: string, users: readonly string[]): void {
    const server = this.server();
    server.databases.delete(physical);
    for (const user of users) server.logins.delete(user);
  }

  listLogins(): Array<[string, FakeLogin]> {
    return [...this.server().logins];
  }
}

/** The fake system's config slice and adapter factory: no admin key, no adapter. */
export const fakeSystem = defineSystem({
  name: 'fakedb',
  variables: {
    /** Where apps reach the fake system: required with FAKEDB_ADMIN_KEY. */
    FAKEDB_HOST: z.string().optional(),
    FAKEDB_PORT: z.coerce.number().int().min(1).max(65_535).default(7000),
    FAKEDB_ADMIN_KEY: z.string().optional(),
  },
  check: (vars) => (vars.FAKEDB_ADMIN_KEY && !vars.FAKEDB_HOST ? ['FAKEDB_HOST'] : []),
  build: (vars): FakeDbAdmin | null =>
    vars.FAKEDB_ADMIN_KEY ? new FakeDbAdmin(vars.FAKEDB_ADMIN_KEY) : null,
});

/** The deployment's fake admin client; 503 where it configures none. */
function adminOf(adapters: Adapters): FakeDbAdmin {
  const admin = fakeSystem.adapter(adapters);
  if (!admin)
    throw new ApiError('SERVICE_UNAVAILABLE', 'no fakedb admin system is configured (FAKEDB_ADMIN_KEY)');
  return admin;
}

/** The URL apps are handed for `login` on `database`, at the configured host and port. */
const urlOf = (vars: { FAKEDB_HOST?: string; FAKEDB_PORT: number }, database: string, login: Login) =>
  `fakedb://${login.user}:${login.secret}@${vars.FAKEDB_HOST}:${vars.FAKEDB_PORT}/${database}`;

/** The fake engine. */
export const fakedb: DatabaseEngine = {
  name: 'fakedb',
  label: 'FakeDB',
  family: { name: 'fakedb', plain: ['FAKEDB_URL'], suffixed: (n) => [`FAKEDB_URL_${n}`] },
  sharedReader: false,
  system: fakeSystem,
  replicaSet: () => false,
  sharedOnly: () => null,
  provisioner(adapters) {
    const admin = adminOf(adapters);
    return {
      async create(db, level) {
        const { user, secret } = admin.createLogin(db.physicalName, level);
        return { name: user, secret };
      },
      setLevel: async (_db, name, level) => admin.setLevel(name, level),
      async rotate(_db, name) {
        const secret = randomPassword();
        admin.setSecret(name, secret);
        return { name, secret };
      },
      drop: async (_db, name) => admin.dropLogin(name),
      setSecret: async (_physical, name, secret) => admin.setSecret(name, secret),
    };
  },
  values: ({ config }, database, login) => ({
    FAKEDB_URL: urlOf(fakeSystem.settings(config), database, login),
  }),
  urls({ config }, db, login) {
    const url = urlOf(fakeSystem.settings(config), db.physicalName, login);
    return { url, external_url: url, pooled_url: url };
  },
  createDatabase: async ({ adapters }, physical, main) => adminOf(adapters).createDatabase(physical, main),
  dropDatabase: async ({ adapters }, physical, logins) => adminOf(adapters).dropDatabase(physical, logins),
  setRunning: async () => undefined,
  async heldCredentials(adapters) {
    const admin = fakeSystem.adapter(adapters);
    if (!admin) return null;
    return admin
      .listLogins()
      .filter(([name]) => name.startsWith('c_'))
      .map(([name, l]) => ({ name, createdAt: l.createdAt, drop: async () => admin.dropLogin(name) }));
  },
  async restoreCredential({ adapters }, db, login, level) {
    return adminOf(adapters).createLogin(db.physicalName, level, login).made;
  },
};
