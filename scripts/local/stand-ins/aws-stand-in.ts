/**
 * A local stand-in for AWS IAM (Query API, Version 2010-05-08) and path-style S3, speaking their
 * wire shapes: SigV4-signed requests (verified with the independent `aws4` signer), IAM XML
 * answers and errors, and S3 requests authorised by evaluating each key user's inline policies
 * with @cloud-copilot/iam-simulate, as AWS would. Started by the local stack when no
 * IAM_ACCESS_KEY_ID is given; never part of the production path.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { parseAuthorization, verifySigV4 } from './aws-sigv4-verify';
import { ACCOUNT, AwsFault, el, IAM_NS, type IamState, type IamUser, iamAction, keyId } from './iam-actions';
import { s3Operation } from './s3-operations';

interface Bucket {
  region: string;
  objects: Record<string, string>;
  settings: Record<string, string>;
}
interface State extends IamState {
  buckets: Record<string, Bucket>;
}

/** A running stand-in. */
export interface AwsStandIn {
  /** IAM_ENDPOINT and STORAGE_ENDPOINT. */
  url: string;
  /** The account's admin key (IAM_ACCESS_KEY_ID / IAM_SECRET_ACCESS_KEY). */
  accessKeyId: string;
  secretAccessKey: string;
  /** Read-only view of the state, for tests. */
  state(): State;
  /** Moves the stand-in's clock (the `aws:CurrentTime` its policies see) by `ms`, for expiry tests. */
  advanceClock(ms: number): void;
  stop(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1 (a free port unless given). */
export async function startAwsStandIn(opts: { port?: number; stateFile?: string } = {}): Promise<AwsStandIn> {
  const admin = { id: keyId(), secret: randomBytes(30).toString('base64') };
  let state: State = { users: {}, buckets: {} };
  if (opts.stateFile) {
    try {
      state = JSON.parse(readFileSync(opts.stateFile, 'utf8')) as State;
    } catch {
      // no state yet
    }
  }
  const save = () => opts.stateFile && writeFileSync(opts.stateFile, JSON.stringify(state), { mode: 0o600 });

  const findKey = (id: string): { user: IamUser | null; secret: string } | null => {
    if (id === admin.id) return { user: null, secret: admin.secret };
    for (const user of Object.values(state.users)) {
      const k = user.keys.find((key) => key.id === id);
      if (k) return { user, secret: k.secret };
    }
    return null;
  };
  let clockOffset = 0;
  async function allowed(
    u: IamUser | null,
    action: string,
    resource: string,
    sourceIp: string,
  ): Promise<boolean> {
    if (!u) return true;
    const result = await runSimulation(
      {
        identityPolicies: Object.entries(u.policies).map(([name, doc]) => ({
          name,
          policy: JSON.parse(doc),
        })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          principal: `arn:aws:iam::${ACCOUNT}:user${u.path}${u.name}`,
          action,
          resource: { resource, accountId: ACCOUNT },
          // What AWS puts in every request's context: who is asking from where, and when.
          contextVariables: {
            'aws:SourceIp': sourceIp,
            'aws:CurrentTime': new Date(Date.now() + clockOffset).toISOString(),
          },
        },
      },
      {},
    );
    return result.resultType !== 'error' && result.overallResult === 'Allowed';
  }

  async function s3(
    req: IncomingMessage,
    body: Buffer,
    url: URL,
    u: IamUser | null,
    res: ServerResponse,
  ): Promise<void> {
    const op = s3Operation(req.method ?? 'GET', url);
    if (!op) throw new AwsFault(501, 'NotImplemented', 'not implemented by the stand-in');
    const sourceIp = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!(await allowed(u, op.action, op.resource, sourceIp)))
      throw new AwsFault(403, 'AccessDenied', 'Access Denied');
    const bucket = op.bucket ? state.buckets[op.bucket] : undefined;
    if (op.name === 'CreateBucket') {
      if (bucket) throw new AwsFault(409, 'BucketAlreadyOwnedByYou', 'bucket exists');
      const region = /<LocationConstraint>([^<]+)</.exec(body.toString())?.[1] ?? 'us-east-1';
      state.buckets[op.bucket as string] = { region, objects: {}, settings: {} };
      save();
      return void res.writeHead(200, { location: `/${op.bucket}` }).end();
    }
    if (!bucket) throw new AwsFault(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (op.name === 'DeleteBucket') {
      if (Object.keys(bucket.objects).length > 0)
        throw new AwsFault(409, 'BucketNotEmpty', 'bucket not empty');
      delete state.buckets[op.bucket as string];
      save();
      return void res.writeHead(204).end();
    }
    if (op.name === 'PutObject') {
      bucket.objects[op.key as string] = body.toString('base64');
      save();
      return void res.writeHead(200, { etag: '"stand-in"' }).end();
    }
    if (op.name === 'GetObject') {
      const data = bucket.objects[op.key as string];
      if (data === undefined) throw new AwsFault(404, 'NoSuchKey', 'The specified key does not exist.');
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(Buffer.from(data, 'base64'));
    }
    if (op.name === 'DeleteObject') {
      delete bucket.objects[op.key as string];
      save();
      return void res.writeHead(204).end();
    }
    if (op.name === 'ListObjectsV2') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const keys = Object.keys(bucket.objects)
        .filter((k) => k.startsWith(prefix))
        .sort();
      const contents = keys.map((k) => `<Contents>${el('Key', k)}</Contents>`).join('');
      return void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<ListBucketResult>${el('Name', op.bucket as string)}<KeyCount>${keys.length}</KeyCount>${contents}</ListBucketResult>`,
        );
    }
    bucket.settings[op.name] = body.toString();
    save();
    return void res.writeHead(200).end();
  }

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const auth = parseAuthorization(req.headers.authorization);
      const service = auth?.service;
      try {
        const key = auth ? findKey(auth.accessKeyId) : null;
        if (!auth || !key)
          throw new AwsFault(
            403,
            'InvalidClientTokenId',
            'The security token included in the request is invalid.',
          );
        const parts = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
        if (!verifySigV4(parts, auth, key.secret))
          throw new AwsFault(
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match the signature you provided.',
          );
        if (service === 'iam') {
          if (key.user) throw new AwsFault(403, 'AccessDenied', 'not authorized to perform IAM actions');
          const xml = iamAction(state, new URLSearchParams(body.toString()), save);
          return void res.writeHead(200, { 'content-type': 'text/xml' }).end(xml);
        }
        if (service === 's3') return await s3(req, body, url, key.user, res);
        throw new AwsFault(400, 'InvalidService', `unknown service ${service}`);
      } catch (err) {
        const fault = err instanceof AwsFault ? err : new AwsFault(500, 'InternalFailure', String(err));
        const inner = `${el('Code', fault.code)}${el('Message', fault.message)}`;
        const xml =
          service === 'iam'
            ? `<ErrorResponse xmlns="${IAM_NS}"><Error><Type>Sender</Type>${inner}</Error><RequestId>0</RequestId></ErrorResponse>`
            : `<Error>${inner}</Error>`;
        if (!res.headersSent) res.writeHead(fault.status, { 'content-type': 'text/xml' });
        res.end(req.method === 'HEAD' ? undefined : xml);
      }
    })();
  });

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accessKeyId: admin.id,
    secretAccessKey: admin.secret,
    state: () => structuredClone(state),
    advanceClock: (ms) => {
      clockOffset += ms;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
