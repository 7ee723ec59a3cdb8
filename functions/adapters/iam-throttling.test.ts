/** IAM calls refused with Throttling are sent again (they were never done); other failures are not. */
import { describe, expect, it } from 'vitest';
import { ProviderError } from './aws-signed-requests';
import { AwsS3Admin } from './s3-admin';

const ERROR = (code: string) =>
  `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${code}</Message></Error></ErrorResponse>`;
const RESULT: Record<string, string> = {
  CreateUser:
    '<CreateUserResponse><CreateUserResult><User><UserName>u</UserName></User></CreateUserResult></CreateUserResponse>',
  PutUserPolicy: '<PutUserPolicyResponse/>',
  CreateAccessKey:
    '<CreateAccessKeyResponse><CreateAccessKeyResult><AccessKey><AccessKeyId>AKIAEXAMPLE</AccessKeyId><SecretAccessKey>secret</SecretAccessKey></AccessKey></CreateAccessKeyResult></CreateAccessKeyResponse>',
};

/** An IAM endpoint that refuses the first `failures` calls of `action` with `code`, recording every call. */
function iam(action: string, code: string, failures: number) {
  const calls: string[] = [];
  const waits: number[] = [];
  let left = failures;
  const fetcher = (async (input: RequestInfo | URL) => {
    const req = input as Request;
    const name = new URLSearchParams(await req.text()).get('Action') ?? '';
    calls.push(name);
    if (name === action && left > 0) {
      left -= 1;
      return new Response(ERROR(code), { status: code === 'Throttling' ? 400 : 500 });
    }
    return new Response(RESULT[name] ?? `<${name}Response/>`, { status: 200 });
  }) as typeof fetch;
  const admin = new AwsS3Admin({
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
    iamEndpoint: 'https://iam.amazonaws.com/',
    storageEndpoint: 'https://s3.amazonaws.com',
    fetcher,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { admin, calls, waits };
}

describe('IAM throttling', () => {
  it('a throttled CreateAccessKey is sent again and the key is made once', async () => {
    const { admin, calls, waits } = iam('CreateAccessKey', 'Throttling', 2);
    const key = await admin.createKey('bucket-x1', 'read', 'c_');
    expect(key.accessKeyId).toBe('AKIAEXAMPLE');
    // Backing off, more each time: 100-300 ms, then 200-600 ms.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(200);
    expect(calls).toEqual([
      'CreateUser',
      'PutUserPolicy',
      'CreateAccessKey',
      'CreateAccessKey',
      'CreateAccessKey',
    ]);
  });

  it('gives up after four throttled attempts, and removes the user it made', async () => {
    const { admin, calls } = iam('CreateAccessKey', 'Throttling', 10);
    await expect(admin.createKey('bucket-x1', 'read', 'c_')).rejects.toBeInstanceOf(ProviderError);
    expect(calls.filter((c) => c === 'CreateAccessKey')).toHaveLength(4);
    expect(calls).toContain('DeleteUser');
  });

  it('a server error is not sent again: the key might exist already', async () => {
    const { admin, calls } = iam('CreateAccessKey', 'ServiceFailure', 1);
    await expect(admin.createKey('bucket-x1', 'read', 'c_')).rejects.toBeInstanceOf(ProviderError);
    expect(calls.filter((c) => c === 'CreateAccessKey')).toHaveLength(1);
  });
});
