/** Storage buckets: S3 keys scoped to one bucket through IAM, handed as STORAGE_* variables. */
import { buckets } from '../../../db/schema';
import { storageEndpointFor } from '../../domain/storage-endpoint';
import { z } from '../../lib/openapi';
import { type ServiceKind, serviceText } from '../service-kind';
import { nameTakenOn, softDeletedRows } from '../service-rows';
import { bucketProvisioner } from './bucket-provisioner';
import { storageAccount, storageAdmin } from './bucket-system';

/** The bucket kind. */
export const bucket: ServiceKind<'bucket'> = {
  name: 'bucket',
  word: 'bucket',
  plural: 'buckets',
  commandWords: ['bucket'],
  levels: [
    { level: 'read', meaning: 'reads objects' },
    { level: 'read-write', meaning: 'reads and writes objects' },
  ],
  levelChangeConsequence: null,
  table: 'buckets',
  nameColumn: 'name',
  enabledColumn: null,
  softDeleted: true,
  hasEngine: false,
  system: storageAccount,
  families: [
    {
      name: 'bucket',
      plain: [
        'STORAGE_ENDPOINT',
        'STORAGE_ACCESS_KEY',
        'STORAGE_SECRET_KEY',
        'STORAGE_BUCKET',
        'STORAGE_REGION',
      ],
      suffixed: (n) =>
        ['ENDPOINT', 'ACCESS_KEY', 'SECRET_KEY', 'BUCKET', 'REGION'].map((f) => `STORAGE_${n}_${f}`),
    },
  ],
  family: () => 'bucket',
  derivedFrom: ['physical_name', 'region', 'access_key_id', 'secret_key_ciphertext'],
  async values(ctx, row) {
    const column = (name: string) => serviceText(row, name);
    const { user, secret } = await ctx.login(row, column('access_key_id'), column('secret_key_ciphertext'));
    const region = column('region') ?? '';
    return {
      STORAGE_ENDPOINT: storageEndpointFor(storageAccount.settings(ctx.config).STORAGE_ENDPOINT, region),
      STORAGE_ACCESS_KEY: user,
      STORAGE_SECRET_KEY: secret,
      STORAGE_BUCKET: column('physical_name') ?? '',
      STORAGE_REGION: region,
    };
  },
  capabilities: (conns) => (conns.length > 0 ? { storage: true } : {}),
  nameTaken: nameTakenOn(
    'buckets_project_name_uq',
    (name) => `a bucket named ${name} already exists in this project`,
  ),
  credentials: {
    credentialField: 'access_key_id',
    credentialLabel: 'Access key ID',
    networkPolicy: false,
    principalRotatesBeside: true,
    // IAM deletes the old key when it makes the new one.
    secretReturns: false,
    provisioner: (adapters) => bucketProvisioner(storageAdmin(adapters)),
    sharedOnly: () => null,
    sharedNow: () => false,
    sharedLogins: false,
    sharedLoginsOf: () => null,
    keeps: () => false,
    shown: (_ctx, _bucket, name, secret) => ({ access_key_id: name, secret_access_key: secret }),
    // A bucket key holds no session on the shared cluster.
    principalCap: () => null,
    principalDocs: {
      idParam: 'bucketId',
      shown: {
        name: 'BucketPrincipalShown',
        fields: { access_key_id: z.string(), secret_access_key: z.string() },
      },
      enforced: 'IAM aws:CurrentTime and aws:SourceIp conditions',
      rotated: ' (a new key pair)',
      revoked: '',
      beside:
        "the new key is the key user's second access key, under the same policy (level, expiry, sources).",
    },
    ...softDeletedRows<'bucket'>(buckets, 'bucket'),
  },
};
