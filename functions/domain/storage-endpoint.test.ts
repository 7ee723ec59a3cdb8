/** Which S3 endpoint a bucket is reached at, by configured endpoint and region. */
import { describe, expect, it } from 'vitest';
import { storageEndpointFor } from './storage-endpoint';

describe('storageEndpointFor', () => {
  it("AWS's global endpoint becomes the bucket region's own", () => {
    expect(storageEndpointFor('https://s3.amazonaws.com', 'eu-west-1')).toBe(
      'https://s3.eu-west-1.amazonaws.com',
    );
    expect(storageEndpointFor('https://s3.amazonaws.com/', 'us-east-1')).toBe(
      'https://s3.us-east-1.amazonaws.com',
    );
  });

  it('any other endpoint is used as configured, without a trailing slash', () => {
    expect(storageEndpointFor('https://abc.r2.cloudflarestorage.com', 'auto')).toBe(
      'https://abc.r2.cloudflarestorage.com',
    );
    expect(storageEndpointFor('http://127.0.0.1:9000/', 'eu-west-1')).toBe('http://127.0.0.1:9000');
    expect(storageEndpointFor('https://s3.eu-west-1.amazonaws.com', 'us-east-1')).toBe(
      'https://s3.eu-west-1.amazonaws.com',
    );
  });

  it('without a region the configured endpoint stays', () => {
    expect(storageEndpointFor('https://s3.amazonaws.com', '')).toBe('https://s3.amazonaws.com');
  });
});
