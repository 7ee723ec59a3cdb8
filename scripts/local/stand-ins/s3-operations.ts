/** Maps a path-style S3 request to the IAM action and resource ARN AWS would authorise it as. */

/** One S3 request, as the stand-in understands it. */
export interface S3Operation {
  name: string;
  action: string;
  resource: string;
  bucket?: string;
  key?: string;
}

/** Bucket subresources and the actions that read, write and delete them. */
const SUBRESOURCES: Record<string, { GET: string; PUT: string; DELETE: string }> = {
  policy: { GET: 'GetBucketPolicy', PUT: 'PutBucketPolicy', DELETE: 'DeleteBucketPolicy' },
  cors: { GET: 'GetBucketCORS', PUT: 'PutBucketCORS', DELETE: 'PutBucketCORS' },
  acl: { GET: 'GetBucketAcl', PUT: 'PutBucketAcl', DELETE: 'PutBucketAcl' },
  versioning: { GET: 'GetBucketVersioning', PUT: 'PutBucketVersioning', DELETE: 'PutBucketVersioning' },
  lifecycle: {
    GET: 'GetLifecycleConfiguration',
    PUT: 'PutLifecycleConfiguration',
    DELETE: 'PutLifecycleConfiguration',
  },
  tagging: { GET: 'GetBucketTagging', PUT: 'PutBucketTagging', DELETE: 'PutBucketTagging' },
  website: { GET: 'GetBucketWebsite', PUT: 'PutBucketWebsite', DELETE: 'DeleteBucketWebsite' },
  encryption: {
    GET: 'GetEncryptionConfiguration',
    PUT: 'PutEncryptionConfiguration',
    DELETE: 'PutEncryptionConfiguration',
  },
  publicAccessBlock: {
    GET: 'GetBucketPublicAccessBlock',
    PUT: 'PutBucketPublicAccessBlock',
    DELETE: 'PutBucketPublicAccessBlock',
  },
};

/** The operation of a request, or null when the stand-in does not implement it. */
export function s3Operation(
  method: string,
  url: URL,
  headers: Record<string, unknown> = {},
): S3Operation | null {
  const [bucket, ...rest] = url.pathname.slice(1).split('/');
  const key = rest.length > 0 ? rest.map(decodeURIComponent).join('/') : undefined;
  // The SDKs name the operation in `x-id` (it changes nothing S3 does) and send flag parameters as
  // `name=`; a presigned URL's `X-Amz-*` parameters are its signature and hoisted headers.
  const query = new Set(
    [...url.searchParams.keys()].filter((name) => name !== 'x-id' && !/^x-amz-/i.test(name)),
  );
  if (!bucket)
    return method === 'GET' ? { name: 'ListBuckets', action: 's3:ListAllMyBuckets', resource: '*' } : null;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  if (key !== undefined && key !== '') {
    const object = (name: string, action: string): S3Operation => ({
      name,
      action,
      resource: `${bucketArn}/${key}`,
      bucket,
      key,
    });
    if (query.has('uploads'))
      return method === 'POST' ? object('CreateMultipartUpload', 's3:PutObject') : null;
    if (query.has('uploadId')) {
      if (method === 'PUT' && query.has('partNumber')) return object('UploadPart', 's3:PutObject');
      if (method === 'POST') return object('CompleteMultipartUpload', 's3:PutObject');
      if (method === 'DELETE') return object('AbortMultipartUpload', 's3:AbortMultipartUpload');
      if (method === 'GET') return object('ListParts', 's3:ListMultipartUploadParts');
      return null;
    }
    if (query.size > 0) return null;
    if (method === 'PUT')
      return headers['x-amz-copy-source'] !== undefined
        ? object('CopyObject', 's3:PutObject')
        : object('PutObject', 's3:PutObject');
    if (method === 'GET') return object('GetObject', 's3:GetObject');
    if (method === 'HEAD') return object('HeadObject', 's3:GetObject');
    if (method === 'DELETE') return object('DeleteObject', 's3:DeleteObject');
    return null;
  }
  const sub = [...query].find((k) => k in SUBRESOURCES);
  if (sub) {
    const name = SUBRESOURCES[sub]?.[method as 'GET' | 'PUT' | 'DELETE'];
    return name ? { name, action: `s3:${name}`, resource: bucketArn, bucket } : null;
  }
  // DeleteObjects is authorised key by key, as s3:DeleteObject on each object.
  if (query.has('delete'))
    return method === 'POST' ? { name: 'DeleteObjects', action: '', resource: bucketArn, bucket } : null;
  if (method === 'PUT')
    return { name: 'CreateBucket', action: 's3:CreateBucket', resource: bucketArn, bucket };
  if (method === 'DELETE')
    return { name: 'DeleteBucket', action: 's3:DeleteBucket', resource: bucketArn, bucket };
  if (method === 'HEAD') return { name: 'HeadBucket', action: 's3:ListBucket', resource: bucketArn, bucket };
  if (method === 'GET')
    return {
      name: url.searchParams.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects',
      action: 's3:ListBucket',
      resource: bucketArn,
      bucket,
    };
  return null;
}
