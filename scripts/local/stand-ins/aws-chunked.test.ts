/**
 * The storage stand-in's aws-chunked decoder against AWS's published example of a signed
 * streaming upload (66560 bytes of "a" in chunks of 65536, 1024 and 0), and its checksums.
 */
import { describe, expect, it } from 'vitest';
import { type ChunkSigning, decodeAwsChunked, signingKey } from './aws-chunked';
import { verifyChecksums } from './s3-checksums';

const SIGNING: ChunkSigning = {
  key: signingKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1', 's3'),
  amzDate: '20130524T000000Z',
  scope: '20130524/us-east-1/s3/aws4_request',
  seedSignature: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
};
const CHUNKS: Array<[number, string]> = [
  [65536, 'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648'],
  [1024, '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497'],
  [0, 'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9'],
];
const example = (corrupt = false) =>
  Buffer.concat(
    CHUNKS.map(([size, signature]) => {
      const data = Buffer.alloc(size, 'a');
      if (corrupt && size === 1024) data[10] = 0x62;
      return Buffer.concat([
        Buffer.from(`${size.toString(16)};chunk-signature=${signature}\r\n`),
        data,
        Buffer.from('\r\n'),
      ]);
    }),
  );

describe('aws-chunked payloads', () => {
  it("decodes AWS's signed example, verifying each chained chunk signature", () => {
    const { data } = decodeAwsChunked(example(), SIGNING);
    expect(data).toEqual(Buffer.alloc(66560, 'a'));
  });

  it('refuses an altered chunk with SignatureDoesNotMatch, and a signed body read as unsigned', () => {
    expect(() => decodeAwsChunked(example(true), SIGNING)).toThrow(/signature/);
    expect(() => decodeAwsChunked(example(), null)).toThrow(/unsigned/);
  });

  it('decodes an unsigned body with a trailing checksum, and refuses a wrong checksum with BadDigest', () => {
    const body = Buffer.from('6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');
    const { data, trailers } = decodeAwsChunked(body, null);
    expect(data.toString()).toBe('hello world');
    expect(verifyChecksums(data, trailers)).toEqual({ algorithm: 'crc32', value: 'DUoRhQ==' });
    expect(() => verifyChecksums(Buffer.from('hello worle'), trailers)).toThrow(/CRC32/);
  });

  it('refuses a body cut short', () => {
    expect(() => decodeAwsChunked(Buffer.from('6\r\nhel'), null)).toThrow(/malformed/);
  });
});
