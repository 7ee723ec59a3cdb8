/** The live service a principal or service-credential route names, and its credential target. */
import type { SQL } from 'drizzle-orm';
import type { Queryable } from '../../../db/client';
import type { PrincipalKind } from '../../domain/principal-rules';
import { credentialsOf } from '../../kinds/registry';
import type { CredentialTarget } from '../credentials/connection-credential';

/** The live service a principal route names (`kind`, `id` of the project `projectId` names), as a query not yet sent. */
export function liveTargetQuery(db: Queryable, projectId: SQL, kind: PrincipalKind, id: string) {
  return credentialsOf(kind).liveQuery(db, projectId, id);
}

/** The credential target from the answer of {@link liveTargetQuery}; 404 when none. */
export function targetOf(kind: PrincipalKind, rows: unknown): CredentialTarget {
  return { kind, resource: credentialsOf(kind).liveOf(rows) } as CredentialTarget;
}
