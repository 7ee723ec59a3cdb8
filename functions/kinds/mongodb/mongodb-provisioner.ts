/** Connection credentials on MongoDB: users `c_` + 8 of [a-z0-9] made through the admin API. */
import { AtlasError, type MongoAdmin } from '../../adapters/mongodb-admin';
import { ApiError } from '../../lib/errors';
import { randomLowerAlnum, randomPassword } from '../../lib/ids';
import { type DatabaseProvisioner, outside } from '../credential-provisioner';

/** The provisioner of MongoDB users through `admin`. */
export function mongoProvisioner(admin: MongoAdmin): DatabaseProvisioner {
  return {
    create(db, level, limits) {
      const password = randomPassword();
      return outside('prepare the database user', async () => {
        for (let attempt = 0; ; attempt++) {
          const name = `c_${randomLowerAlnum(8)}`;
          try {
            await admin.createUser(
              db.physicalName,
              name,
              password,
              level,
              limits && { expiresAt: limits.expiresAt, allowedSources: limits.allowedSources },
            );
            return { name, secret: password };
          } catch (err) {
            if (limits?.allowedSources.length && refusesSourceRestriction(err)) throw sourcesRefused();
            if (atUserLimit(err)) throw userLimitReached();
            // A taken name answers 409 (USER_ALREADY_EXISTS); draw again.
            if (!(err instanceof AtlasError && err.status === 409) || attempt >= 4) throw err;
          }
        }
      });
    },
    async setLevel(db, name, level) {
      await outside('change the database user', () => admin.setUserLevel(db.physicalName, name, level));
    },
    async rotate(_db, name) {
      const secret = randomPassword();
      await outside('replace the database password', () => admin.setUserPassword(name, secret));
      return { name, secret };
    },
    // A second user with the same role on the same database; the admin API lists no sessions.
    beside(db, _name, level) {
      return this.create(db, level);
    },
    async drop(_db, name) {
      await outside('delete the database user', () => admin.dropUser(name));
    },
    setSecret: (_physical, name, secret) => admin.setUserPassword(name, secret),
  };
}

/** Atlas refused a new user because the project holds its limit of database users (100 by default). */
const atUserLimit = (err: unknown) =>
  err instanceof AtlasError && err.errorCode === 'GROUP_USERS_LIMIT_EXCEEDED';

/** 409 naming Atlas's limit: each connection and principal of a MongoDB database takes one user. */
const userLimitReached = () =>
  new ApiError(
    'CONFLICT',
    "the MongoDB project holds Atlas's limit of database users (100 a project; each connection and principal takes one): disconnect a site or revoke a principal, or ask Atlas support for more; nothing was changed",
  );

/** The admin API refused the per-user source restriction itself (400 naming authenticationRestrictions). */
const refusesSourceRestriction = (err: unknown) =>
  err instanceof AtlasError && err.status === 400 && err.detail.includes('authenticationRestrictions');

/**
 * An admin side that takes no per-user source restriction (Atlas's public CloudDatabaseUser
 * reference lists no `authenticationRestrictions`) cannot pin a principal to its sources: 400 with
 * nothing made, rather than a credential that looks limited and is not.
 */
const sourcesRefused = () =>
  new ApiError(
    'BAD_REQUEST',
    "allowed_sources: this MongoDB admin API refuses a per-user source restriction (authenticationRestrictions.clientSource), so the principal cannot be limited to sources; leave allowed_sources empty and restrict sources with the Atlas project's IP access list",
    'allowed_sources',
  );
