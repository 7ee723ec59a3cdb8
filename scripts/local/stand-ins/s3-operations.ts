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
export function s3Operation(method: string, url: URL): S3Operation | null {
  const [bucket, ...rest] = url.pathname.slice(1).split('/');
  const key = rest.length > 0 ? rest.map(decodeURIComponent).join('/') : undefined;
  if (!bucket)
    return method === 'GET' ? { name: 'ListBuckets', action: 's3:ListAllMyBuckets', resource: '*' } : null;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  if (key !== undefined && key !== '') {
    const objectArn = `${bucketArn}/${key}`;
    if (url.searchParams.size > 0) return null;
    if (method === 'PUT')
      return { name: 'PutObject', action: 's3:PutObject', resource: objectArn, bucket, key };
    if (method === 'GET' || method === 'HEAD')
      return { name: 'GetObject', action: 's3:GetObject', resource: objectArn, bucket, key };
    if (method === 'DELETE')
      return { name: 'DeleteObject', action: 's3:DeleteObject', resource: objectArn, bucket, key };
    return null;
  }
  const sub = [...url.searchParams.keys()].find((k) => k in SUBRESOURCES);
  if (sub) {
    const name = SUBRESOURCES[sub]?.[method as 'GET' | 'PUT' | 'DELETE'];
    return name ? { name, action: `s3:${name}`, resource: bucketArn, bucket } : null;
  }
  if (method === 'PUT')
    return { name: 'CreateBucket', action: 's3:CreateBucket', resource: bucketArn, bucket };
  if (method === 'DELETE')
    return { name: 'DeleteBucket', action: 's3:DeleteBucket', resource: bucketArn, bucket };
  if (method === 'GET' || method === 'HEAD')
    return { name: 'ListObjectsV2', action: 's3:ListBucket', resource: bucketArn, bucket };
  return null;
}
