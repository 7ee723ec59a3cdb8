/** S3's listings, ListObjects (v1) and ListObjectsV2: sizes, ETags and times, prefixes, delimiters, pages. */
import { el } from './iam-actions';
import { S3_NS } from './s3-common';
import type { Bucket, StoredObject } from './s3-objects';

/** ListObjects (v1) and ListObjectsV2 of `bucket`, with prefix, delimiter and pages. */
export function listObjects(name: string, bucket: Bucket, url: URL, v2: boolean): string {
  const q = url.searchParams;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = Math.min(Math.max(Number(q.get('max-keys') ?? 1000) || 0, 0), 1000);
  const after = v2
    ? ((q.get('continuation-token')
        ? Buffer.from(q.get('continuation-token') ?? '', 'base64url').toString()
        : q.get('start-after')) ?? '')
    : (q.get('marker') ?? '');
  const entries: Array<{ key: string; prefix?: boolean }> = [];
  const seen = new Set<string>();
  for (const key of Object.keys(bucket.objects).sort()) {
    if (!key.startsWith(prefix) || key <= after) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (cut >= 0) {
      const common = key.slice(0, cut + delimiter.length);
      if (!seen.has(common) && common > after) entries.push({ key: common, prefix: true });
      seen.add(common);
    } else entries.push({ key });
  }
  const page = entries.slice(0, maxKeys);
  const truncated = entries.length > page.length;
  const last = page.at(-1)?.key ?? '';
  const contents = page
    .filter((e) => !e.prefix)
    .map(({ key }) => {
      const o = bucket.objects[key] as StoredObject;
      const size = Buffer.from(o.data, 'base64').length;
      return `<Contents>${el('Key', key)}${el('LastModified', o.lastModified)}${el('ETag', o.etag)}<Size>${size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    })
    .join('');
  const prefixes = page
    .filter((e) => e.prefix)
    .map((e) => `<CommonPrefixes>${el('Prefix', e.key)}</CommonPrefixes>`)
    .join('');
  const common = `${el('Name', name)}${el('Prefix', prefix)}${delimiter ? el('Delimiter', delimiter) : ''}<MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`;
  const paging = v2
    ? `<KeyCount>${page.length}</KeyCount>${q.get('continuation-token') ? el('ContinuationToken', q.get('continuation-token') ?? '') : ''}${truncated ? el('NextContinuationToken', Buffer.from(last).toString('base64url')) : ''}`
    : `${el('Marker', after)}${truncated && delimiter ? el('NextMarker', last) : ''}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${S3_NS}">${common}${paging}${contents}${prefixes}</ListBucketResult>`;
}
