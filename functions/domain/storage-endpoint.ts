/**
 * The S3 endpoint for a bucket's region. AWS's global endpoint (`https://s3.amazonaws.com`,
 * STORAGE_ENDPOINT's default) serves us-east-1 only: a request for a bucket elsewhere, signed
 * for its region, is refused (AuthorizationHeaderMalformed or PermanentRedirect). So with the
 * AWS default each bucket goes to `https://s3.<region>.amazonaws.com`, for Tether's own calls
 * and in the STORAGE_ENDPOINT its apps are handed. Any other endpoint (R2, MinIO, a stand-in)
 * serves every region it has and is used as configured.
 */

const AWS_GLOBAL_HOST = 's3.amazonaws.com';

/** The endpoint to reach a bucket of `region` at, given the configured STORAGE_ENDPOINT. */
export function storageEndpointFor(configured: string, region: string): string {
  const url = new URL(configured);
  if (url.hostname !== AWS_GLOBAL_HOST || !region) return configured.replace(/\/+$/, '');
  return `${url.protocol}//s3.${region}.amazonaws.com`;
}
