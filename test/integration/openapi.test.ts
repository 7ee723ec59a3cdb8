/** The OpenAPI document: served, valid OpenAPI 3.1, and listing every management route of the contract. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { api } from '../helpers/api';

/** contract §3–§5 and §7–§9's routes and the documented management routes (connections, per-service sites), in OpenAPI path form. */
const EXPECTED: Array<[string, string]> = [
  ['post', '/api/v1/accounts'],
  ['get', '/api/v1/account'],
  ['post', '/api/v1/account/tokens'],
  ['get', '/api/v1/account/tokens'],
  ['delete', '/api/v1/account/tokens/{tokenId}'],
  ['post', '/api/v1/account/sessions'],
  ['get', '/api/v1/account/sessions'],
  ['delete', '/api/v1/account/sessions/{sessionId}'],
  ['delete', '/api/v1/account/sessions'],
  ['post', '/api/v1/projects'],
  ['get', '/api/v1/projects'],
  ['get', '/api/v1/projects/{id}'],
  ['put', '/api/v1/projects/{id}/members/{accountId}'],
  ['delete', '/api/v1/projects/{id}/members/{accountId}'],
  ['get', '/api/v1/projects/{id}/members'],
  ['post', '/api/v1/projects/{id}/invitations'],
  ['get', '/api/v1/projects/{id}/invitations'],
  ['delete', '/api/v1/projects/{id}/invitations/{invitationId}'],
  ['post', '/api/v1/invitations/{token}/accept'],
  ['post', '/api/v1/projects/{id}/api-keys'],
  ['get', '/api/v1/projects/{id}/api-keys'],
  ['delete', '/api/v1/projects/{id}/api-keys/{keyId}'],
  ['post', '/api/v1/projects/{id}/sites'],
  ['get', '/api/v1/projects/{id}/sites'],
  ['delete', '/api/v1/projects/{id}/sites/{siteId}'],
  ['post', '/api/v1/projects/{id}/databases'],
  ['get', '/api/v1/projects/{id}/databases'],
  ['post', '/api/v1/projects/{id}/databases/{dbId}/stop'],
  ['post', '/api/v1/projects/{id}/databases/{dbId}/start'],
  ['delete', '/api/v1/projects/{id}/databases/{dbId}'],
  ['post', '/api/v1/projects/{id}/buckets'],
  ['get', '/api/v1/projects/{id}/buckets'],
  ['delete', '/api/v1/projects/{id}/buckets/{bucketId}'],
  ['get', '/api/v1/projects/{id}/sites/{siteId}/env'],
  ['put', '/api/v1/projects/{id}/sites/{siteId}/env'],
  ['get', '/api/v1/projects/{id}/sites/{siteId}/env/effective'],
  ['post', '/api/v1/projects/{id}/sites/{siteId}/deploys'],
  ['post', '/api/v1/projects/{id}/sites/{siteId}/deploys/{deployId}/rollback'],
  ['post', '/api/v1/projects/{id}/auth-apps'],
  ['get', '/api/v1/projects/{id}/auth-apps'],
  ['patch', '/api/v1/projects/{id}/auth-apps/{authAppId}'],
  ['get', '/api/v1/projects/{id}/auth-apps/{authAppId}/users'],
  ['patch', '/api/v1/projects/{id}/auth-apps/{authAppId}/users/{userId}'],
  ['delete', '/api/v1/projects/{id}/auth-apps/{authAppId}/users/{userId}'],
  ['get', '/api/v1/projects/{id}/connections'],
  ['get', '/api/v1/projects/{id}/sites/{siteId}/connections'],
  ['put', '/api/v1/projects/{id}/sites/{siteId}/connections'],
  ['post', '/api/v1/projects/{id}/sites/{siteId}/connections'],
  ['delete', '/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}'],
  ['post', '/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotate'],
  ['post', '/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/promote'],
  ['get', '/api/v1/projects/{id}/databases/{dbId}/credentials'],
  ['post', '/api/v1/projects/{id}/databases/{dbId}/credentials/rotate'],
  ['get', '/api/v1/projects/{id}/buckets/{bucketId}/credentials'],
  ['post', '/api/v1/projects/{id}/buckets/{bucketId}/credentials/rotate'],
  ['post', '/api/v1/projects/{id}/databases/{dbId}/principals'],
  ['get', '/api/v1/projects/{id}/databases/{dbId}/principals'],
  ['post', '/api/v1/projects/{id}/databases/{dbId}/principals/{principalId}/rotate'],
  ['delete', '/api/v1/projects/{id}/databases/{dbId}/principals/{principalId}'],
  ['post', '/api/v1/projects/{id}/buckets/{bucketId}/principals'],
  ['get', '/api/v1/projects/{id}/buckets/{bucketId}/principals'],
  ['post', '/api/v1/projects/{id}/buckets/{bucketId}/principals/{principalId}/rotate'],
  ['delete', '/api/v1/projects/{id}/buckets/{bucketId}/principals/{principalId}'],
  ['get', '/api/v1/projects/{id}/databases/{dbId}/access'],
  ['get', '/api/v1/projects/{id}/buckets/{bucketId}/access'],
  ['get', '/api/v1/projects/{id}/auth-apps/{authAppId}/access'],
  ['get', '/api/v1/databases/{id}/sites'],
  ['put', '/api/v1/databases/{id}/sites'],
  ['get', '/api/v1/storage/{id}/sites'],
  ['put', '/api/v1/storage/{id}/sites'],
];

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await api().get<Record<string, unknown>>('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(EXPECTED)('documents %s %s', async (method, path) => {
    const res = await api().get<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json');
    expect(Object.keys(res.body.paths[path] ?? {})).toContain(method);
  });
});

describe('error responses in the OpenAPI document', () => {
  type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const doc = async () => (await api().get<Doc>('/api/v1/openapi.json')).body;

  it('every management route documents 400, 401, 403 and 404 with the error body', async () => {
    const { paths } = await doc();
    for (const [method, path] of EXPECTED) {
      const responses = paths[path]?.[method]?.responses ?? {};
      expect(Object.keys(responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(['400', '401', '403', '404']),
      );
      expect(JSON.stringify(responses['400']), `${method} ${path}`).toContain('#/components/schemas/Error');
    }
  });

  it('routes that can conflict or meet an unreachable outside system document 409 and 503', async () => {
    const { paths } = await doc();
    const conns = '/api/v1/projects/{id}/sites/{siteId}/connections';
    for (const [method, path] of [
      ['post', conns],
      ['put', conns],
      ['post', `${conns}/{kind}/{resourceId}/rotate`],
      ['put', '/api/v1/databases/{id}/sites'],
      ['post', '/api/v1/projects/{id}/databases'],
      ['post', '/api/v1/projects/{id}/databases/{dbId}/principals'],
      ['post', '/api/v1/projects/{id}/buckets/{bucketId}/principals'],
      ['post', '/api/v1/projects/{id}/databases/{dbId}/credentials/rotate'],
    ] as const) {
      expect(Object.keys(paths[path]?.[method]?.responses ?? {}), `${method} ${path}`).toEqual(
        expect.arrayContaining(['409', '503']),
      );
    }
  });

  it('every route but the document itself documents 503 with Retry-After (the metadata database can refuse any)', async () => {
    const { paths } = await doc();
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(paths)) {
      if (path === '/api/v1/openapi.json') continue;
      for (const [method, op] of Object.entries(ops)) {
        const unavailable = op.responses?.['503'] as { headers?: Record<string, unknown> } | undefined;
        if (!unavailable?.headers?.['Retry-After']) missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("member changes document 409 (a project's last owner cannot be demoted or removed)", async () => {
    const { paths } = await doc();
    const member = paths['/api/v1/projects/{id}/members/{accountId}'];
    for (const method of ['put', 'delete'] as const) {
      expect(Object.keys(member?.[method]?.responses ?? {}), method).toContain('409');
    }
  });
});
