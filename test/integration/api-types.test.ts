/**
 * The checked-in API types (types/api.d.ts, which the CLI's client and the console are
 * typed with) are what openapi-typescript makes of the document the Worker serves: a route whose
 * schema changed without `npm run api:types` fails here, not in a user's hands.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource } from '../../scripts/api-types';
import { api } from '../helpers/api';

describe('the generated API types', () => {
  it("match the Worker's served OpenAPI document (run `npm run api:types` when this fails)", async () => {
    const res = await api().get<Record<string, unknown>>('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const checkedIn = await readFile(new URL(`../../${API_TYPES_FILE}`, import.meta.url), 'utf8');
    expect(checkedIn).toBe(await apiTypesSource(res.body));
  });
});
