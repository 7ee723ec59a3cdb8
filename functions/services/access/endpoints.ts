/**
 * The connection strings a database's credentials views show (specification, Per-connection
 * credentials 7): `url` as apps reach the cluster, `external_url` from outside the platform,
 * `pooled_url` through the connection pooler. MongoDB drivers pool connections themselves and
 * Atlas has no separate pooler, so its `pooled_url` is its external one.
 */
import type { DatabaseRow } from '../../../db/rows';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import { mongodbUri } from '../../domain/mongodb-uri';

/** The three URLs of one login on a database. */
export interface DatabaseUrls {
  url: string;
  external_url: string;
  pooled_url: string;
}

/** The URLs for `user`/`password` on database `db`. */
export function databaseUrls(
  config: Config,
  adapters: Adapters,
  db: DatabaseRow,
  user: string,
  password: string,
): DatabaseUrls {
  if (db.engine === 'mongodb') {
    const internal = mongodbUri(config.MONGODB_PUBLIC_HOST, user, password, db.physicalName);
    const external = config.MONGODB_EXTERNAL_HOST
      ? mongodbUri(config.MONGODB_EXTERNAL_HOST, user, password, db.physicalName)
      : internal;
    return { url: internal, external_url: external, pooled_url: external };
  }
  const enc = encodeURIComponent;
  const at = (hostPort: string | undefined) => {
    const { host, port } = adapters.postgres.endpoint(hostPort);
    return `postgres://${enc(user)}:${enc(password)}@${host}:${port}/${db.physicalName}`;
  };
  const externalHost = config.CUSTOMER_DB_EXTERNAL_HOST ?? config.CUSTOMER_DB_PUBLIC_HOST;
  return {
    url: at(config.CUSTOMER_DB_PUBLIC_HOST),
    external_url: at(externalHost),
    pooled_url: at(config.CUSTOMER_DB_POOLED_HOST ?? externalHost),
  };
}
