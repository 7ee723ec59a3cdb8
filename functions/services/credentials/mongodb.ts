/** Connection credentials on MongoDB: users `c_` + 8 of [a-z0-9] made through the admin API. */
import { AtlasError, type MongoAdmin } from '../../adapters/mongodb-admin';
import { randomLowerAlnum, randomPassword } from '../../lib/ids';
import { type DatabaseProvisioner, outside } from './provisioner';

/** The provisioner of MongoDB users through `admin`. */
export function mongoProvisioner(admin: MongoAdmin): DatabaseProvisioner {
  return {
    create(db, level, limits) {
      // Atlas has no per-user source restriction; the principal service refuses one with 400.
      if (limits?.allowedSources.length) throw new Error('a MongoDB user cannot have a source allowlist');
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
              limits && { expiresAt: limits.expiresAt },
            );
            return { name, secret: password };
          } catch (err) {
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
    async drop(_db, name) {
      await outside('delete the database user', () => admin.dropUser(name));
    },
  };
}
