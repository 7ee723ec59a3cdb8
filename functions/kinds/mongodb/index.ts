/** MongoDB databases through the Atlas Admin API: users per connection, or the shared user of a standalone database. */
import type { Adapters } from '../../adapters';
import { AtlasError, type MongoAdmin } from '../../adapters/mongodb-admin';
import type { Config } from '../../config';
import { ApiError } from '../../lib/errors';
import { atSystem } from '../credential-provisioner';
import { type DatabaseEngine, inScope } from '../database-engine';
import { mongoProvisioner } from './mongodb-provisioner';
import { atlasProject } from './mongodb-system';
import { mongodbUri } from './mongodb-uri';

const CONNECTION_NAME = /^c_[a-z0-9]{8}$/;
const NOT_CONFIGURED = 'no MongoDB admin system is configured (MONGODB_ADMIN_URL)';

/** Where apps reach MongoDB; the environment check requires it wherever MongoDB is configured. */
function publicHostOf(config: Config): string {
  const host = atlasProject.settings(config).MONGODB_PUBLIC_HOST;
  if (!host) throw new ApiError('SERVICE_UNAVAILABLE', NOT_CONFIGURED);
  return host;
}

/** The deployment's MongoDB admin API, or the error saying it configures none. */
function adminOf(adapters: Adapters): MongoAdmin {
  const admin = atlasProject.adapter(adapters);
  if (!admin) throw new Error(NOT_CONFIGURED);
  return admin;
}

/** The MongoDB engine. */
export const mongodb: DatabaseEngine = {
  name: 'mongodb',
  label: 'MongoDB',
  family: {
    name: 'mongodb',
    plain: ['MONGODB_URI', 'MONGODB_URL'],
    suffixed: (n) => [`MONGODB_URI_${n}`, `MONGODB_URL_${n}`],
  },
  sharedReader: false,
  system: atlasProject,
  replicaSet: (requested) => requested ?? true,
  sharedOnly: (db) =>
    db.replicaSet
      ? null
      : 'a standalone MongoDB has only its shared user; use the database credentials instead',
  provisioner(adapters) {
    const admin = atlasProject.adapter(adapters);
    if (!admin) throw new ApiError('SERVICE_UNAVAILABLE', NOT_CONFIGURED);
    return mongoProvisioner(admin);
  },
  values({ config }, database, login) {
    const url = mongodbUri(publicHostOf(config), login.user, login.secret, database);
    return { MONGODB_URI: url, MONGODB_URL: url };
  },
  urls({ config }, db, login) {
    // MongoDB drivers pool connections themselves and Atlas has no separate pooler.
    const internal = mongodbUri(publicHostOf(config), login.user, login.secret, db.physicalName);
    const externalHost = atlasProject.settings(config).MONGODB_EXTERNAL_HOST;
    const external = externalHost
      ? mongodbUri(externalHost, login.user, login.secret, db.physicalName)
      : internal;
    return { url: internal, external_url: external, pooled_url: external };
  },
  // The database's shared user (what a standalone database hands its apps).
  createDatabase: ({ adapters }, physical, main) =>
    atSystem(
      'creating a MongoDB user',
      'the MongoDB admin system could not create the database user; nothing was changed, retry later',
      () => adminOf(adapters).createUser(physical, main.user, main.secret, 'connect'),
    ),
  async dropDatabase({ adapters }, _physical, logins) {
    const admin = atlasProject.adapter(adapters);
    if (!admin) return;
    // Idempotent, so a retry after a partial failure finishes the job.
    await atSystem(
      'dropping MongoDB users',
      'the MongoDB admin system is unreachable; retry later',
      async () => {
        for (const user of logins) await admin.dropUser(user);
      },
    );
  },
  // Atlas databases have no stopped state of their own: the status is Tether's record only.
  setRunning: async () => undefined,
  async heldCredentials(adapters, scope) {
    const admin = atlasProject.adapter(adapters);
    if (!admin) return null;
    // Atlas holds at most 100 users a project: one listing, scoped here.
    const all = (await admin.listUsers())
      .filter((u) => CONNECTION_NAME.test(u.username))
      .map((u) => ({
        name: u.username,
        createdAt: u.createdAt,
        database: u.databases.find((d) => d !== 'admin'),
        drop: () => admin.dropUser(u.username),
      }));
    return inScope(all, scope);
  },
  async restoreCredential({ adapters }, db, login, level) {
    try {
      await adminOf(adapters).createUser(db.physicalName, login.user, login.secret, level);
      return true;
    } catch (err) {
      // Made meanwhile (Atlas answers 409 USER_ALREADY_EXISTS): nothing to restore.
      if (err instanceof AtlasError && err.status === 409) return false;
      throw err;
    }
  },
};
