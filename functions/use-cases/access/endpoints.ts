/**
 * The connection strings a database's credentials views show (docs/connections.md, per-connection
 * credentials): `url` as apps reach the cluster, `external_url` from outside the platform,
 * `pooled_url` through the connection pooler. MongoDB drivers pool connections themselves and
 * Atlas has no separate pooler, so its `pooled_url` is its external one.
 */

import type { DatabaseRow } from '../../../db/rows';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import type { DatabaseUrls } from '../../kinds/database-engine';
import { engineOf } from '../../kinds/registry';

export type { DatabaseUrls };

/** The URLs for `user`/`password` on database `db`. */
export function databaseUrls(
  config: Config,
  adapters: Adapters,
  db: DatabaseRow,
  user: string,
  password: string,
): DatabaseUrls {
  return engineOf(db.engine).urls({ config, adapters }, db, { user, secret: password });
}
