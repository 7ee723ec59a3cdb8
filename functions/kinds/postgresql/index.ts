/** PostgreSQL databases on the customer cluster: login roles, the shared reader, the tunnel. */
import { pgCode } from '../../adapters/postgres-sql';
import { atSystem } from '../credential-provisioner';
import type { DatabaseEngine, EngineContext, Login } from '../database-engine';
import { postgresProvisioner } from './provisioner';

const enc = encodeURIComponent;

/** A URL for `login` on database `database` through `hostPort` (the cluster's own when absent). */
function urlAt({ adapters }: EngineContext, hostPort: string | undefined, database: string, login: Login) {
  const { host, port } = adapters.postgres.endpoint(hostPort);
  return `postgres://${enc(login.user)}:${enc(login.secret)}@${host}:${port}/${database}`;
}

/** The PostgreSQL engine. */
export const postgresql: DatabaseEngine = {
  name: 'postgresql',
  label: 'PostgreSQL',
  family: {
    name: 'postgresql',
    plain: ['DATABASE_URL'],
    suffixed: (n) => [`DATABASE_URL_${n}`],
  },
  sharedReader: true,
  tunnel: true,
  replicaSet: () => false,
  sharedOnly: () => null,
  provisioner: (adapters) => postgresProvisioner(adapters.postgres),
  values: (ctx, database, login) => ({
    DATABASE_URL: urlAt(ctx, ctx.config.CUSTOMER_DB_PUBLIC_HOST, database, login),
  }),
  urls(ctx, db, login) {
    const { config } = ctx;
    const externalHost = config.CUSTOMER_DB_EXTERNAL_HOST ?? config.CUSTOMER_DB_PUBLIC_HOST;
    return {
      url: urlAt(ctx, config.CUSTOMER_DB_PUBLIC_HOST, db.physicalName, login),
      external_url: urlAt(ctx, externalHost, db.physicalName, login),
      pooled_url: urlAt(ctx, config.CUSTOMER_DB_POOLED_HOST ?? externalHost, db.physicalName, login),
    };
  },
  createDatabase: ({ adapters }, physical, main) =>
    atSystem(
      'creating a database on the cluster',
      'the database cluster could not create the database; nothing was changed, retry later',
      () => adapters.postgres.createDatabase(physical, main.user, main.secret),
    ),
  dropDatabase: ({ adapters }, physical, logins) =>
    atSystem(
      'dropping a database',
      'the database cluster is unreachable; nothing was changed, retry later',
      () => adapters.postgres.dropDatabase(physical, logins),
    ),
  secureDatabase: ({ adapters }, physical) => adapters.postgres.secureOwnership(physical),
  setRunning: ({ adapters }, physical, running) =>
    atSystem('stopping or starting a database', 'the database cluster is unreachable; retry later', () =>
      adapters.postgres.setRunning(physical, running),
    ),
  async heldCredentials(adapters, scope) {
    return (await adapters.postgres.listLogins(scope)).map((login) => {
      // A login's database is the one whose `<db>_rw` or `<db>_ro` group it is in.
      const group = login.groups.find((g) => /_(rw|ro)$/.test(g));
      return {
        name: login.name,
        createdAt: login.createdAt,
        ...(group ? { database: group.slice(0, -3) } : {}),
        drop: () => adapters.postgres.dropLogin(group ? group.slice(0, -3) : '', login.name),
      };
    });
  },
  passwordRefused: (adapters, physical, login) =>
    adapters.postgres.passwordRefused(physical, login.user, login.secret),
  async restoreCredential({ adapters }, db, login, level) {
    try {
      await adapters.postgres.createLogin(db.physicalName, level, db.status === 'running', {
        name: login.user,
        password: login.secret,
      });
      return true;
    } catch (err) {
      // Made meanwhile by the connection's own path: nothing to restore.
      if (pgCode(err) !== '42710') throw err;
      return false;
    }
  },
};
