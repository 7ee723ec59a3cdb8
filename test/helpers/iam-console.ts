/** What someone in the IAM console does behind Tether's back, through the stand-in's own API. */
import { AwsClient } from 'aws4fetch';
import type { AwsStandIn } from '../../scripts/local/stand-ins/aws-stand-in';

/** Deletes access key `key` at IAM (DeleteAccessKey on the user holding it); throws unless IAM answers 200. */
export async function deleteKeyAtIam(aws: AwsStandIn, key: string): Promise<void> {
  const holder = Object.values(aws.state().users).find((u) => u.keys.some((k) => k.id === key));
  if (!holder) throw new Error(`no IAM user holds ${key}`);
  const iam = new AwsClient({
    accessKeyId: aws.accessKeyId,
    secretAccessKey: aws.secretAccessKey,
    service: 'iam',
    region: 'us-east-1',
  });
  const res = await iam.fetch(aws.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      Action: 'DeleteAccessKey',
      Version: '2010-05-08',
      UserName: holder.name,
      AccessKeyId: key,
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`DeleteAccessKey answered ${res.status}: ${await res.text()}`);
}
