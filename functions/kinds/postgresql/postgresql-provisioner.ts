/** Connection credentials on PostgreSQL: login roles `c_` + 8 of [a-z0-9] on the customer cluster. */
import type { PostgresAdmin } from '../../adapters/postgres-admin-interface';
import { randomPassword } from '../../lib/ids';
import { type DatabaseProvisioner, outside } from '../credential-provisioner';

/** The provisioner of PostgreSQL login roles through `admin`. */
export function postgresProvisioner(admin: PostgresAdmin): DatabaseProvisioner {
  return {
    async create(db, level, limits) {
      // A principal may be made while its database is stopped; a connection never is (it shares).
      // One with allowed sources may not log in before the network policy enforcing them is.
      const waits = (limits?.allowedSources.length ?? 0) > 0;
      const login = await outside('prepare the database role', () =>
        admin.createLogin(
          db.physicalName,
          level,
          db.status === 'running',
          undefined,
          limits?.expiresAt,
          !waits,
        ),
      );
      return { name: login.name, secret: login.password };
    },
    async setLevel(db, name, level) {
      await outside('change the database role', () =>
        admin.setLoginLevel(db.physicalName, name, level, db.status === 'running'),
      );
    },
    async rotate(db, name) {
      const secret = randomPassword();
      // Held until the caller stored it: no repair can set the old password back in between.
      const hold = await outside('replace the database password', () =>
        admin.holdLoginPassword(db.physicalName, name, secret),
      );
      return { name, secret, hold };
    },
    // A second login of the same identity: the same level, groups and role settings (objects a
    // connect-level app makes still belong to `<db>_rw`), so either login does what the other does.
    beside(db, _name, level) {
      return this.create(db, level);
    },
    sessions: (_db, name) => admin.loginSessions(name),
    async drop(db, name) {
      await outside('delete the database role', () => admin.dropLogin(db.physicalName, name));
    },
    setSecret: (physical, name, secret) => admin.setLoginPassword(physical, name, secret),
    activate: (name) => admin.allowLogin(name),
  };
}
