/**
 * A local stand-in for AWS IAM (Query API, Version 2010-05-08) and path-style S3, speaking their
 * wire shapes: SigV4-signed requests (verified with the independent `aws4` signer), IAM XML
 * answers and errors, and S3 requests authorised by evaluating each key user's inline policies
 * with @cloud-copilot/iam-simulate, as AWS would. Started by the local stack when no
 * IAM_ACCESS_KEY_ID is given; never part of the production path.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeAwsChunked, payloadHashMatches, signingKey } from './aws-chunked';
import {
  hoistedHeaders,
  parseAuthorization,
  parsePresignedQuery,
  presignedRefusal,
  type SigV4Auth,
  verifySigV4,
} from './aws-sigv4-verify';
import {
  AwsFault,
  addAccessKey,
  allowedBy,
  el,
  fillUsersToQuota,
  IAM_NS,
  type IamState,
  type IamUser,
  iamAction,
  keyId,
} from './iam-actions';
import { userOfKey } from './iam-index';
import { type Checksum, verifyChecksums } from './s3-checksums';
import { S3_NS } from './s3-common';
import { listObjects } from './s3-listing';
import { type Bucket, objectOperation, type StoredObject } from './s3-objects';
import { s3Operation } from './s3-operations';
import { type RateLimit, Throttle } from './throttle';

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
  /** IAM's request rate limit (400 Throttling past it); tests queue refusals on it. */
  throttle: Throttle;
  /** Gives key user `userName` another access key, as the IAM console would; returns its id. */
  addAccessKey(userName: string): string;
  /** Adds users made outside Tether (path `/outside/`) until the account is at its quota; returns that quota. */
  fillUsersToQuota(): number;
  stop(): Promise<void>;
}

/** Objects kept by an earlier stand-in as bare base64 strings, given the fields S3 lists. */
function upgradeObjects(bucket: Bucket): void {
  for (const [key, value] of Object.entries(bucket.objects as Record<string, StoredObject | string>)) {
    if (typeof value !== 'string') continue;
    const data = Buffer.from(value, 'base64');
    bucket.objects[key] = {
      data: value,
      etag: `"${createHash('md5').update(data).digest('hex')}"`,
      lastModified: new Date().toISOString(),
      contentType: 'binary/octet-stream',
      metadata: {},
    };
  }
}

/** Starts the stand-in on 127.0.0.1 (a free port unless given). */
export async function startAwsStandIn(
  opts: { port?: number; stateFile?: string; rateLimit?: RateLimit } = {},
): Promise<AwsStandIn> {
  const throttle = new Throttle(opts.rateLimit);
  const admin = { id: keyId(), secret: randomBytes(30).toString('base64') };
  let state: State = { users: {}, buckets: {} };
  if (opts.stateFile) {
    try {
      state = JSON.parse(readFileSync(opts.stateFile, 'utf8')) as State;
    } catch {
      // no state yet
    }
    for (const bucket of Object.values(state.buckets)) upgradeObjects(bucket);
  }
  const save = () => opts.stateFile && writeFileSync(opts.stateFile, JSON.stringify(state), { mode: 0o600 });

  const findKey = (id: string): { user: IamUser | null; secret: string } | null => {
    if (id === admin.id) return { user: null, secret: admin.secret };
    const user = userOfKey(state.users, id);
    const k = user?.keys.find((key) => key.id === id);
    return user && k ? { user, secret: k.secret } : null;
  };
  let clockOffset = 0;
  async function s3(
    req: IncomingMessage,
    raw: Buffer,
    url: URL,
    caller: { user: IamUser | null; auth: SigV4Auth; secret: string },
    res: ServerResponse,
  ): Promise<void> {
    // A presigned URL's x-amz-* query parameters stand for the headers of the same names.
    const headers = caller.auth.presigned ? { ...req.headers, ...hoistedHeaders(url) } : req.headers;
    const op = s3Operation(req.method ?? 'GET', url, headers);
    if (!op)
      throw new AwsFault(
        501,
        'NotImplemented',
        'A header or query you provided implies functionality that is not implemented.',
      );
    const sourceIp = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const may = (action: string, resource: string) =>
      allowedBy(caller.user, action, resource, sourceIp, new Date(Date.now() + clockOffset));
    if (op.action && !(await may(op.action, op.resource)))
      throw new AwsFault(403, 'AccessDenied', 'Access Denied');
    const { body, checksum } = payload(headers, raw, caller);
    const bucket = op.bucket ? state.buckets[op.bucket] : undefined;
    if (op.name === 'CreateBucket') {
      if (bucket) throw new AwsFault(409, 'BucketAlreadyOwnedByYou', 'bucket exists');
      const region = /<LocationConstraint>([^<]+)</.exec(body.toString())?.[1] ?? 'us-east-1';
      state.buckets[op.bucket as string] = { region, objects: {}, settings: {} };
      save();
      return void res.writeHead(200, { location: `/${op.bucket}` }).end();
    }
    if (op.name === 'ListBuckets') {
      const names = Object.keys(state.buckets).sort();
      const list = names.map((n) => `<Bucket>${el('Name', n)}</Bucket>`).join('');
      return void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<ListAllMyBucketsResult xmlns="${S3_NS}"><Buckets>${list}</Buckets></ListAllMyBucketsResult>`);
    }
    if (!bucket) throw new AwsFault(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (op.name === 'DeleteBucket') {
      if (Object.keys(bucket.objects).length > 0)
        throw new AwsFault(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty');
      delete state.buckets[op.bucket as string];
      save();
      return void res.writeHead(204).end();
    }
    if (op.name === 'HeadBucket')
      return void res.writeHead(200, { 'x-amz-bucket-region': bucket.region }).end();
    if (op.name === 'ListObjectsV2' || op.name === 'ListObjects')
      return void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(listObjects(op.bucket as string, bucket, url, op.name === 'ListObjectsV2'));
    const request = {
      op,
      bucket,
      url,
      headers,
      body,
      ...(checksum ? { checksum } : {}),
      allowed: may,
      bucketNamed: (name: string) => state.buckets[name],
      save,
    };
    if (await objectOperation(request, res)) return;
    bucket.settings[op.name] = body.toString();
    save();
    return void res.writeHead(200).end();
  }

  /** The request's payload as S3 stores it: aws-chunked decoded, signatures and checksums verified. */
  function payload(
    headers: IncomingMessage['headers'],
    raw: Buffer,
    caller: { auth: SigV4Auth; secret: string },
  ): { body: Buffer; checksum?: Checksum } {
    const declared = headers['x-amz-content-sha256'];
    if (typeof declared === 'string' && declared.startsWith('STREAMING-')) {
      const signed = declared.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD');
      if (!signed && declared !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER')
        throw new AwsFault(400, 'InvalidArgument', `x-amz-content-sha256 ${declared} is not supported`);
      const { auth } = caller;
      const signing = signed
        ? {
            key: signingKey(caller.secret, auth.date, auth.region, auth.service),
            amzDate: String(headers['x-amz-date']),
            scope: `${auth.date}/${auth.region}/${auth.service}/aws4_request`,
            seedSignature: auth.signature,
          }
        : null;
      const { data, trailers } = decodeAwsChunked(raw, signing);
      const announced = String(headers['x-amz-trailer'] ?? '').toLowerCase();
      if (announced && !(announced in trailers))
        throw new AwsFault(
          400,
          'MalformedTrailerError',
          'The request contained trailing data that was not well-formed.',
        );
      if (Number(headers['x-amz-decoded-content-length']) !== data.length)
        throw new AwsFault(
          400,
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length HTTP header.',
        );
      const checksum = verifyChecksums(data, { ...headers, ...trailers });
      return { body: data, ...(checksum ? { checksum } : {}) };
    }
    if (!payloadHashMatches(typeof declared === 'string' ? declared : undefined, raw))
      throw new AwsFault(
        400,
        'XAmzContentSHA256Mismatch',
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    const checksum = verifyChecksums(raw, headers);
    return { body: raw, ...(checksum ? { checksum } : {}) };
  }

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const auth = parseAuthorization(req.headers.authorization) ?? parsePresignedQuery(url);
      const service = auth?.service ?? (req.headers.authorization ? undefined : 's3');
      try {
        const key = auth ? findKey(auth.accessKeyId) : null;
        if (!auth && service === 's3') throw new AwsFault(403, 'AccessDenied', 'Access Denied');
        // S3 and IAM name an unknown key differently; apps retry on S3's own code.
        if (!auth || !key)
          throw service === 's3'
            ? new AwsFault(
                403,
                'InvalidAccessKeyId',
                'The AWS Access Key Id you provided does not exist in our records.',
              )
            : new AwsFault(
                403,
                'InvalidClientTokenId',
                'The security token included in the request is invalid.',
              );
        const expired = presignedRefusal(auth);
        if (expired) throw new AwsFault(403, 'AccessDenied', expired);
        const parts = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
        if (!verifySigV4(parts, auth, key.secret))
          throw new AwsFault(
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
          );
        if (service === 'iam') {
          if (key.user) throw new AwsFault(403, 'AccessDenied', 'not authorized to perform IAM actions');
          const xml = iamAction(state, new URLSearchParams(body.toString()), save, throttle);
          return void res.writeHead(200, { 'content-type': 'text/xml' }).end(xml);
        }
        if (service === 's3')
          return await s3(req, body, url, { user: key.user, auth, secret: key.secret }, res);
        throw new AwsFault(400, 'InvalidService', `unknown service ${service}`);
      } catch (err) {
        const fault = err instanceof AwsFault ? err : new AwsFault(500, 'InternalError', String(err));
        const inner = `${el('Code', fault.code)}${el('Message', fault.message)}`;
        const requestId = randomBytes(8).toString('hex').toUpperCase();
        const xml =
          service === 'iam'
            ? `<ErrorResponse xmlns="${IAM_NS}"><Error><Type>Sender</Type>${inner}</Error><RequestId>${requestId}</RequestId></ErrorResponse>`
            : `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${inner}${el('RequestId', requestId)}</Error>`;
        if (!res.headersSent)
          res.writeHead(fault.status, { 'content-type': 'application/xml', 'x-amz-request-id': requestId });
        res.end(req.method === 'HEAD' ? undefined : xml);
      }
    })();
  });

  // Node's 5 s default closes a kept-alive socket while a client is already sending on it (a
  // "socket hang up" mid-upload); S3 keeps idle connections open far longer.
  server.keepAliveTimeout = 65_000;
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
    throttle,
    addAccessKey: (userName) => addAccessKey(state, userName, save),
    fillUsersToQuota: () => fillUsersToQuota(state, save),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
