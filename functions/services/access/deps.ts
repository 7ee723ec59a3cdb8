/** What the service-credential and principal services need, built once per request from the route's pieces. */
import type { SQL } from 'drizzle-orm';
import type { Db, HttpDb, Queryable } from '../../../db/client';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import type { Services } from '../../container';
import type { PrincipalKind } from '../../domain/principal-rules';
import type { ProvisioningMessage } from '../../domain/queue-messages';
import { credentialsOf } from '../../kinds/registry';
import type { ActivitySource } from '../activity';
import type { CredentialTarget } from '../credentials/connection-credential';

/** The request's database, configuration, outside systems and provisioning queue. */
export interface AccessDeps {
  db: Db;
  /** One-shot statements and batches over HTTP (no connection set-up). */
  http: HttpDb;
  config: Config;
  adapters: Adapters;
  queue: Queue<ProvisioningMessage>;
  /** Who the request's changes are recorded as in the Activity record. */
  activity?: ActivitySource;
}

/** Builds {@link AccessDeps} from the request's database handles and the composition root's services. */
export function accessDeps(db: Db, http: HttpDb, services: Services, activity?: ActivitySource): AccessDeps {
  const { config, adapters, queue } = services;
  return { db, http, config, adapters, queue, activity };
}

/** The live service a principal route names (`kind`, `id` of the project `projectId` names), as a query not yet sent. */
export function liveTargetQuery(db: Queryable, projectId: SQL, kind: PrincipalKind, id: string) {
  return credentialsOf(kind).liveQuery(db, projectId, id);
}

/** The credential target from the answer of {@link liveTargetQuery}; 404 when none. */
export function targetOf(kind: PrincipalKind, rows: unknown): CredentialTarget {
  return { kind, resource: credentialsOf(kind).liveOf(rows) } as CredentialTarget;
}
