/** PostgreSQL databases on the customer cluster: login roles, the shared reader, the tunnel. */
import type { Adapters } from '../../adapters';
import { pgCode } from '../../adapters/postgres-sql';
import { atSystem } from '../credential-provisioner';
import type { DatabaseEngine, EngineContext, Login } from '../database-engine';
import { postgresProvisioner } from './postgresql-provisioner';
import { clusterWantsTls, customerCluster } from './postgresql-system';

const enc = encodeURIComponent;

/** The customer cluster's admin adapter. */
const cluster = (adapters: Adapters) => customerCluster.adapter(adapters);

/** A URL for `login` on database `database` through `hostPort` (the cluster's own when absent). */
function urlAt({ adapters }: EngineContext, hostPort: string | undefined, database: string, login: Login) {
  const { host, port } = cluster(adapters).endpoint(hostPort);
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
  system: customerCluster,
  tunnelEndpoint({ config, adapters }) {
    const vars = customerCluster.settings(config);
    const { host, port } = cluster(adapters).endpoint(vars.CUSTOMER_DB_PUBLIC_HOST);
    return { host, port: Number(port), tls: clusterWantsTls(vars.CUSTOMER_DB_ADMIN_URL) };
  },
  replicaSet: () => false,
  sharedOnly: () => null,
  provisioner: (adapters) => postgresProvisioner(cluster(adapters)),
  values: (ctx, database, login) => ({
    DATABASE_URL: urlAt(ctx, customerCluster.settings(ctx.config).CUSTOMER_DB_PUBLIC_HOST, database, login),
  }),
  urls(ctx, db, login) {
    const config = customerCluster.settings(ctx.config);
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
      () => cluster(adapters).createDatabase(physical, main.user, main.secret),
    ),
  dropDatabase: ({ adapters }, physical, logins) =>
    atSystem(
      'dropping a database',
      'the database cluster is unreachable; nothing was changed, retry later',
      () => cluster(adapters).dropDatabase(physical, logins),
    ),
  secureDatabase: ({ adapters }, physical) => cluster(adapters).secureOwnership(physical),
  setRunning: ({ adapters }, physical, running) =>
    atSystem('stopping or starting a database', 'the database cluster is unreachable; retry later', () =>
      cluster(adapters).setRunning(physical, running),
    ),
  async heldCredentials(adapters, scope) {
    return (await cluster(adapters).listLogins(scope)).map((login) => {
      // A login's database is the one whose `<db>_rw` or `<db>_ro` group it is in.
      const group = login.groups.find((g) => /_(rw|ro)$/.test(g));
      return {
        name: login.name,
        createdAt: login.createdAt,
        ...(group ? { database: group.slice(0, -3) } : {}),
        drop: () => cluster(adapters).dropLogin(group ? group.slice(0, -3) : '', login.name),
      };
    });
  },
  passwordRefused: (adapters, physical, login) =>
    cluster(adapters).passwordRefused(physical, login.user, login.secret),
  async restoreCredential({ adapters }, db, login, level) {
    try {
      await cluster(adapters).createLogin(db.physicalName, level, db.status === 'running', {
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
