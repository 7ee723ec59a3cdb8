/**
 * What the credentials service is handed for a database, built without the metadata database:
 * for tests that drive the credential provisioners against the cluster or the Atlas stand-in.
 */
import type { CredentialTarget } from '../../functions/use-cases/credentials/connection-credential';
import type { DatabaseRow } from '../../functions/use-cases/resources/databases';

/**
 * A running replica-set database whose physical database is `physical` (main user `u_<physical>`,
 * a fresh id and project), with `over` on top, as a credential target.
 */
export function databaseTarget(physical: string, over: Partial<DatabaseRow> = {}): CredentialTarget {
  return {
    kind: 'database',
    resource: {
      id: crypto.randomUUID(),
      projectId: crypto.randomUUID(),
      name: 'main',
      engine: 'postgresql',
      replicaSet: true,
      status: 'running',
      physicalName: physical,
      mainUser: `u_${physical}`,
      mainPasswordCiphertext: 'unused',
      readerUser: null,
      readerPasswordCiphertext: null,
      readerHanded: false,
      writerUser: null,
      writerPasswordCiphertext: null,
      writerHanded: false,
      mainExposed: false,
      ownershipPending: false,
      deletedAt: null,
      createdAt: new Date(),
      ...over,
    },
  };
}
