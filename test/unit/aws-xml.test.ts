/**
 * Reading IAM and S3 answers (functions/adapters/xml.ts, on fast-xml-parser): the values the
 * adapter takes from each answer, one-member and many-member lists, entities and references,
 * and error bodies of both services.
 */
import { describe, expect, it } from 'vitest';
import { xmlError, xmlMembers, xmlText } from '../../functions/adapters/xml';

const NS = 'xmlns="https://iam.amazonaws.com/doc/2010-05-08/"';

describe('IAM and S3 XML', () => {
  it('reads a new access key, decoding entities and character references in its secret', () => {
    const xml = `<?xml version="1.0"?><CreateAccessKeyResponse ${NS}><CreateAccessKeyResult><AccessKey>
      <UserName>c_ab12</UserName><AccessKeyId>AKIAEXAMPLE</AccessKeyId><Status>Active</Status>
      <SecretAccessKey>a&amp;b&lt;c&#x2F;d&#43;e</SecretAccessKey></AccessKey></CreateAccessKeyResult>
      <ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></CreateAccessKeyResponse>`;
    expect(xmlText(xml, 'AccessKeyId')).toBe('AKIAEXAMPLE');
    expect(xmlText(xml, 'SecretAccessKey')).toBe('a&b<c/d+e');
  });

  it('lists members, whether one or several, and reads their fields as text (no number guessing)', () => {
    const users = (names: string[]) =>
      `<ListUsersResponse ${NS}><ListUsersResult><IsTruncated>false</IsTruncated><Users>${names
        .map(
          (n) =>
            `<member><Path>/tether/b/</Path><UserName>${n}</UserName><UserId>000123</UserId><CreateDate>2026-01-02T03:04:05Z</CreateDate></member>`,
        )
        .join('')}</Users></ListUsersResult></ListUsersResponse>`;
    const one = xmlMembers(users(['c_1']), 'Users');
    expect(one.map((m) => xmlText(m, 'UserName'))).toEqual(['c_1']);
    expect(xmlText(one[0] ?? '', 'UserId')).toBe('000123');
    const many = xmlMembers(users(['c_1', 'c_2', 'c_3']), 'Users');
    expect(many.map((m) => xmlText(m, 'UserName'))).toEqual(['c_1', 'c_2', 'c_3']);
    expect(xmlMembers(users([]), 'Users')).toEqual([]);
    expect(xmlMembers('<ListAccessKeysResponse/>', 'AccessKeyMetadata')).toEqual([]);
  });

  it('reads the code and message of IAM and S3 errors, and survives a body that is not XML', () => {
    expect(
      xmlError(
        `<ErrorResponse ${NS}><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>`,
      ),
    ).toEqual({ code: 'Throttling', message: 'Rate exceeded' });
    expect(
      xmlError(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message></Message></Error>',
      ),
    ).toEqual({ code: 'NoSuchBucket', message: '' });
    expect(xmlError('upstream timed out')).toEqual({ code: 'Unknown', message: '' });
  });

  it('a missing field throws unless a fallback is given', () => {
    expect(() => xmlText('<A><B>1</B></A>', 'C')).toThrow(/no <C>/);
    expect(xmlText('<A><B>1</B></A>', 'C', 'none')).toBe('none');
  });

  it('refuses a document with a DOCTYPE, so no declared entity is ever expanded', () => {
    const xml = '<!DOCTYPE x [<!ENTITY e "EXPANDED">]><A><B>&e;</B></A>';
    expect(() => xmlText(xml, 'B')).toThrow(/DOCTYPE/);
    expect(xmlError(xml)).toEqual({ code: 'Unknown', message: '' });
  });
});
