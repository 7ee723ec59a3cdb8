/**
 * Reading IAM and S3 answers (functions/adapters/xml.ts, on fast-xml-parser, loaded by the first
 * answer read): the values the
 * adapter takes from each answer, one-member and many-member lists, entities and references,
 * and error bodies of both services.
 */
import { describe, expect, it } from 'vitest';
import { xmlDocument, xmlError, xmlMembers, xmlText } from './xml';

const NS = 'xmlns="https://iam.amazonaws.com/doc/2010-05-08/"';

describe('IAM and S3 XML', () => {
  it('reads a new access key, decoding entities and character references in its secret', async () => {
    const xml = `<?xml version="1.0"?><CreateAccessKeyResponse ${NS}><CreateAccessKeyResult><AccessKey>
      <UserName>c_ab12</UserName><AccessKeyId>AKIAEXAMPLE</AccessKeyId><Status>Active</Status>
      <SecretAccessKey>a&amp;b&lt;c&#x2F;d&#43;e</SecretAccessKey></AccessKey></CreateAccessKeyResult>
      <ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></CreateAccessKeyResponse>`;
    const doc = await xmlDocument(xml);
    expect(xmlText(doc, 'AccessKeyId')).toBe('AKIAEXAMPLE');
    expect(xmlText(doc, 'SecretAccessKey')).toBe('a&b<c/d+e');
  });

  it('lists members, whether one or several, and reads their fields as text (no number guessing)', async () => {
    const users = (names: string[]) =>
      `<ListUsersResponse ${NS}><ListUsersResult><IsTruncated>false</IsTruncated><Users>${names
        .map(
          (n) =>
            `<member><Path>/tether/b/</Path><UserName>${n}</UserName><UserId>000123</UserId><CreateDate>2026-01-02T03:04:05Z</CreateDate></member>`,
        )
        .join('')}</Users></ListUsersResult></ListUsersResponse>`;
    const one = xmlMembers(await xmlDocument(users(['c_1'])), 'Users');
    expect(one.map((m) => xmlText(m, 'UserName'))).toEqual(['c_1']);
    expect(xmlText(one[0] ?? '', 'UserId')).toBe('000123');
    const many = xmlMembers(await xmlDocument(users(['c_1', 'c_2', 'c_3'])), 'Users');
    expect(many.map((m) => xmlText(m, 'UserName'))).toEqual(['c_1', 'c_2', 'c_3']);
    expect(xmlMembers(await xmlDocument(users([])), 'Users')).toEqual([]);
    expect(xmlMembers(await xmlDocument('<ListAccessKeysResponse/>'), 'AccessKeyMetadata')).toEqual([]);
  });

  it('reads the code and message of IAM and S3 errors, and survives a body that is not XML', async () => {
    expect(
      await xmlError(
        `<ErrorResponse ${NS}><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>`,
      ),
    ).toEqual({ code: 'Throttling', message: 'Rate exceeded' });
    expect(
      await xmlError(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message></Message></Error>',
      ),
    ).toEqual({ code: 'NoSuchBucket', message: '' });
    expect(await xmlError('upstream timed out')).toEqual({ code: 'Unknown', message: '' });
  });

  it('a missing field throws unless a fallback is given', async () => {
    const doc = await xmlDocument('<A><B>1</B></A>');
    expect(() => xmlText(doc, 'C')).toThrow(/no <C>/);
    expect(xmlText(doc, 'C', 'none')).toBe('none');
  });

  it('refuses a document with a DOCTYPE, so no declared entity is ever expanded', async () => {
    const xml = '<!DOCTYPE x [<!ENTITY e "EXPANDED">]><A><B>&e;</B></A>';
    await expect(xmlDocument(xml)).rejects.toThrow(/DOCTYPE/);
    expect(await xmlError(xml)).toEqual({ code: 'Unknown', message: '' });
  });
});
