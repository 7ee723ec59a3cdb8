/**
 * The served OpenAPI document as tools nobody here wrote read it: Redocly's `lint` with its
 * recommended rules reports no error, and Spectral's `spectral:oas` ruleset no error or
 * warning. Both run offline on the document the Worker serves.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api';

let source: string;

/**
 * The one finding left standing, on purpose: the database tunnel is a WebSocket, whose success
 * is 101 Switching Protocols, and Spectral's operation-success-response counts 2xx and 3xx only.
 */
const isTunnelUpgrade = (code: string | number, path: ReadonlyArray<string | number>) =>
  code === 'operation-success-response' && String(path[1]).endsWith('/tunnel/{dbId}');

beforeAll(async () => {
  const res = await api().get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  source = res.text;
});

describe('the served OpenAPI document, linted', () => {
  it("Redocly's recommended rules: no error", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
  });

  it("Spectral's spectral:oas: no error and no warning", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(new Document(source, Json, 'openapi.json'));
    // Severity 0 is an error, 1 a warning; 2 and 3 (information, hints) are not counted.
    const found = results
      .filter((r) => r.severity <= 1)
      .filter((r) => !isTunnelUpgrade(r.code, r.path))
      .map((r) => `${String(r.code)}: ${r.message} at ${r.path.join('.')}`);
    expect(found).toEqual([]);
  });
});
