/**
 * One contract suite for every outside-system interface (test/helpers/contracts): the same
 * behavioural cases against each implementation available here. PostgresAdmin runs on the
 * stack's real cluster; MongoAdmin and StorageAdmin on their stand-ins and, when credentials are
 * in the environment, on real Atlas and AWS; the signed receivers against a recording endpoint;
 * the CodeStore and RateLimiter clients against their Durable Objects in workerd.
 */
import { AwsClient } from 'aws4fetch';
import { inject } from 'vitest';
import { AtlasMongoAdmin } from '../../functions/adapters/mongodb-admin';
import { SignedHttpReceiver } from '../../functions/adapters/receiver';
import { AwsS3Admin } from '../../functions/adapters/s3-admin';
import type { Bindings, ReceiverTarget } from '../../functions/config';
import { loadConfig } from '../../functions/kinds/registry';
import { randomLowerAlnum, randomPassword } from '../../functions/lib/ids';
import { startAwsStandIn } from '../../scripts/local/stand-ins/aws-stand-in';
import { startAtlasStandIn } from '../../scripts/local/stand-ins/mongodb-atlas-stand-in';
import { deviceGrantCases } from '../helpers/contracts/device-grants';
import { codeStoreCases, rateLimiterCases } from '../helpers/contracts/durable-objects';
import { type MongoHarness, mongoAdminCases } from '../helpers/contracts/mongo-admin';
import { type PostgresHarness, postgresAdminCases } from '../helpers/contracts/postgres-admin';
import { type ReceiverHarness, receiverCases } from '../helpers/contracts/receiver';
import { needsEnv, runContract } from '../helpers/contracts/run';
import { type StorageHarness, storageAdminCases } from '../helpers/contracts/storage-admin';
import { startDurableObjects, startNodeDurableObjects } from '../helpers/durable-objects';
import { eventually } from '../helpers/eventually';
import { localPostgresAdmin } from '../helpers/pg-login';
import { startReceiver } from '../helpers/receiver';

runContract<PostgresHarness>(
  'PostgresAdmin',
  [
    {
      name: 'ClusterPostgresAdmin on the local cluster',
      async start() {
        const admin = localPostgresAdmin();
        const db = `contract_${randomLowerAlnum(8)}`;
        const main = { name: `u_${db}`, password: randomPassword() };
        await admin.createDatabase(db, main.name, main.password);
        return { admin, db, main };
      },
      async stop({ admin, db }) {
        const logins = (await admin.listLogins()).filter((l) => l.groups.some((g) => g.startsWith(`${db}_`)));
        await admin.dropDatabase(
          db,
          logins.map((l) => l.name),
        );
      },
    },
  ],
  postgresAdminCases,
);

runContract<MongoHarness & { stop?: () => Promise<void> }>(
  'MongoAdmin',
  [
    {
      name: 'AtlasMongoAdmin on the Atlas stand-in',
      async start() {
        const atlas = await startAtlasStandIn();
        return {
          admin: new AtlasMongoAdmin(atlas.adminUrl, atlas.adminKey),
          database: `contract_${randomLowerAlnum(8)}`,
          authenticates: async (user, password) => atlas.authenticates(user, password),
          stop: () => atlas.stop(),
        };
      },
      stop: (h) => h.stop?.() ?? Promise.resolve(),
    },
    {
      name: 'AtlasMongoAdmin on MongoDB Atlas',
      skip: needsEnv('ATLAS_ADMIN_URL', 'ATLAS_ADMIN_KEY'),
      async start() {
        const { ATLAS_ADMIN_URL = '', ATLAS_ADMIN_KEY = '' } = process.env;
        return {
          admin: new AtlasMongoAdmin(ATLAS_ADMIN_URL, ATLAS_ADMIN_KEY),
          database: `contract_${randomLowerAlnum(8)}`,
        };
      },
    },
  ],
  mongoAdminCases,
);

/** Empties and deletes a bucket on real S3 (the stand-in is simply stopped). */
async function removeBucket(h: StorageHarness, admin: AwsClient, bucket: string): Promise<void> {
  const listing = await (await admin.fetch(`${h.s3Endpoint}/${bucket}?list-type=2`)).text();
  for (const [, key] of listing.matchAll(/<Key>([^<]+)<\/Key>/g)) {
    await (await admin.fetch(`${h.s3Endpoint}/${bucket}/${key}`, { method: 'DELETE' })).arrayBuffer();
  }
  await h.admin.deleteBucket(bucket, h.region);
}

runContract<StorageHarness & { stop(): Promise<void> }>(
  'StorageAdmin',
  [
    {
      name: 'AwsS3Admin on the IAM/S3 stand-in',
      async start() {
        const aws = await startAwsStandIn();
        const admin = new AwsS3Admin({
          accessKeyId: aws.accessKeyId,
          secretAccessKey: aws.secretAccessKey,
          iamEndpoint: aws.url,
          storageEndpoint: aws.url,
        });
        const h = {
          admin,
          bucket: `files-${randomLowerAlnum(8)}`,
          otherBucket: `other-${randomLowerAlnum(8)}`,
          region: 'us-east-1',
          s3Endpoint: aws.url,
          // The stand-in applies every change at once: one look must already see it.
          settle: <T>(probe: () => Promise<T>) => probe(),
          stop: () => aws.stop(),
        };
        await admin.createBucket(h.bucket, h.region);
        await admin.createBucket(h.otherBucket, h.region);
        return h;
      },
      stop: (h) => h.stop(),
    },
    {
      name: 'AwsS3Admin on AWS',
      skip: needsEnv('AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'),
      async start() {
        const { AWS_ACCESS_KEY_ID = '', AWS_SECRET_ACCESS_KEY = '', AWS_REGION = 'us-east-1' } = process.env;
        const keys = { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY };
        const admin = new AwsS3Admin({
          ...keys,
          iamEndpoint: 'https://iam.amazonaws.com',
          storageEndpoint: 'https://s3.amazonaws.com',
        });
        const raw = new AwsClient({ ...keys, service: 's3', region: AWS_REGION });
        const h: StorageHarness & { stop(): Promise<void> } = {
          admin,
          bucket: `tether-contract-${randomLowerAlnum(12)}`,
          otherBucket: `tether-contract-${randomLowerAlnum(12)}`,
          region: AWS_REGION,
          s3Endpoint: `https://s3.${AWS_REGION}.amazonaws.com`,
          // IAM changes reach S3 within seconds, not at once.
          settle: (probe, want) => eventually(probe, (got) => got === want, 60_000, 'the IAM change'),
          stop: async () => {
            await removeBucket(h, raw, h.bucket);
            await removeBucket(h, raw, h.otherBucket);
          },
        };
        await admin.createBucket(h.bucket, h.region);
        await admin.createBucket(h.otherBucket, h.region);
        return h;
      },
      stop: (h) => h.stop(),
    },
  ],
  storageAdminCases,
);

const siteId = crypto.randomUUID();
const projectId = crypto.randomUUID();
/** A receiver as the Worker builds it (container.ts), from the environment's URL and secret. */
function signedReceiver(
  choose: (config: ReturnType<typeof loadConfig>) => ReceiverTarget | null,
  env: object,
) {
  const config = loadConfig({ ...(inject('workerEnv') as object), ...env } as unknown as Bindings);
  const target = choose(config);
  if (!target) throw new Error('the receiver is not configured');
  return new SignedHttpReceiver(target);
}

runContract<ReceiverHarness>(
  'Receiver',
  [
    {
      name: 'the runtime patch receiver (RUNTIME_PATCH_URL)',
      async start() {
        const endpoint = await startReceiver();
        const secret = randomPassword();
        const receiver = signedReceiver((c) => c.runtimePatch, {
          RUNTIME_PATCH_URL: `${endpoint.url}/patch`,
          RUNTIME_PATCH_SECRET: secret,
        });
        const body = (seq: number) =>
          JSON.stringify({ site_id: siteId, project_id: projectId, set: {}, unset: [], reason: 'key', seq });
        return { receiver, endpoint, secret, body };
      },
      stop: (h) => h.endpoint.close(),
    },
    {
      name: 'the network policy receiver (NETWORK_POLICY_URL)',
      async start() {
        const endpoint = await startReceiver();
        const secret = randomPassword();
        const receiver = signedReceiver((c) => c.networkPolicy, {
          NETWORK_POLICY_URL: `${endpoint.url}/policy`,
          NETWORK_POLICY_SECRET: secret,
        });
        const body = (n: number) =>
          JSON.stringify({
            database_id: siteId,
            project_id: projectId,
            allowed_site_ids: [],
            principals: [{ username: `c_0000000${n}`, allowed_sources: ['10.0.0.0/8'] }],
          });
        return { receiver, endpoint, secret, body };
      },
      stop: (h) => h.endpoint.close(),
    },
  ],
  receiverCases,
);

type ObjectClients = Pick<Awaited<ReturnType<typeof startDurableObjects>>, 'codes' | 'rates' | 'stop'>;
const objects: Array<{
  name: string;
  start: () => Promise<ObjectClients>;
  stop: (h: ObjectClients) => Promise<void>;
}> = [
  {
    name: 'the Durable Object clients on workerd (Miniflare)',
    start: startDurableObjects,
    stop: (h) => h.stop(),
  },
  // The in-process test world runs the same classes in Node: they keep the same contract there.
  {
    name: 'the Durable Object clients in Node (test/node-workers)',
    start: startNodeDurableObjects,
    stop: (h) => h.stop(),
  },
];
runContract('CodeStore', objects, (get) => codeStoreCases(() => get().codes));
runContract('CodeStore device grants', objects, (get) => deviceGrantCases(() => get().codes));
runContract('RateLimiter', objects, (get) => rateLimiterCases(() => get().rates));
