/**
 * The signed requests of the storage adapter (s3-admin.ts): SigV4 by aws4fetch, to the IAM
 * Query API (Version 2010-05-08, retried while IAM throttles) and to S3 (path-style URLs on the
 * region's storage endpoint), and the provider's errors they answer.
 */
import { AwsClient } from 'aws4fetch';
import { storageEndpointFor } from '../domain/storage-endpoint';
import { type XmlNode, xmlDocument, xmlError } from './xml';

const IAM_VERSION = '2010-05-08';

/** An error answered by IAM or S3, with the provider's code. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Set when the provider was limiting the request rate: seconds to wait before trying again. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** IAM's code for a request refused for the account's request rate (some SDKs name it ThrottlingException). */
const isThrottling = (code: string) => code === 'Throttling' || code === 'ThrottlingException';
/** Seconds a caller is told to wait after IAM still throttled every attempt. */
const THROTTLED_RETRY_AFTER = 5;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How many times an IAM call refused with Throttling is sent. */
const IAM_ATTEMPTS = 4;

/** Options of {@link AwsSignedRequests}: the credentials and the endpoints. */
export interface AwsSignedRequestsOptions {
  accessKeyId: string;
  secretAccessKey: string;
  iamEndpoint: string;
  storageEndpoint: string;
  fetcher?: typeof fetch;
  /** Waits between attempts of a throttled call (tests pass their own clock). */
  sleep?: (ms: number) => Promise<void>;
}

/** Signs and sends the adapter's IAM and S3 requests. */
export class AwsSignedRequests {
  private readonly aws: AwsClient;
  private readonly fetcher: typeof fetch;

  constructor(private readonly opts: AwsSignedRequestsOptions) {
    // No retries inside the signer: a request fails fast, and the queue retries with backoff.
    this.aws = new AwsClient({
      accessKeyId: opts.accessKeyId,
      secretAccessKey: opts.secretAccessKey,
      retries: 0,
    });
    // Bound: workerd refuses a global fetch called as a method of another object (Illegal invocation).
    this.fetcher = opts.fetcher ?? ((input, init) => fetch(input, init));
  }

  /** Sends IAM Query API `action`, again (with backoff) while IAM throttles it; the answer's parsed XML. */
  async iam(action: string, params: Record<string, string>): Promise<XmlNode> {
    const body = new URLSearchParams({ Action: action, Version: IAM_VERSION, ...params }).toString();
    for (let attempt = 1; ; attempt++) {
      const req = await this.aws.sign(this.opts.iamEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body,
        aws: { service: 'iam', region: 'us-east-1' },
      });
      const res = await this.fetcher(req);
      if (res.ok) return xmlDocument(await res.text());
      const err = await this.failure(res, action);
      // Throttling refuses a request before doing it, so sending it again is safe, even for a
      // CreateAccessKey; any other failure might have half-happened and is left to the caller.
      if (!isThrottling(err.code)) throw err;
      if (attempt >= IAM_ATTEMPTS)
        throw new ProviderError(err.status, err.code, err.message, THROTTLED_RETRY_AFTER);
      // Exponential backoff with jitter, so callers throttled together do not retry together.
      await (this.opts.sleep ?? wait)(100 * 2 ** attempt * (0.5 + Math.random()));
    }
  }

  /** Sends an S3 request on `bucket` (path-style, at the region's endpoint). */
  async s3(method: string, bucket: string, region: string, body?: string): Promise<Response> {
    const url = `${storageEndpointFor(this.opts.storageEndpoint, region)}/${bucket}`;
    const req = await this.aws.sign(url, { method, body, aws: { service: 's3', region } });
    return this.fetcher(req);
  }

  /** The provider's error in a failed answer. */
  async failure(res: Response, action: string): Promise<ProviderError> {
    const { code, message } = await xmlError(await res.text().catch(() => ''));
    return new ProviderError(res.status, code, `${action} answered ${res.status} ${code}: ${message}`);
  }
}
