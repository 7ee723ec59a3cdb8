/**
 * The checked-in API types (types/api.d.ts, which the CLI's client and the console are
 * typed with) are what openapi-typescript makes of the document the Worker serves: a route whose
 * schema changed without `npm run api:types` fails here, not in a user's hands. Their shapes
 * (a target input discriminated by `type`, Delivery.reason's enum, typed JWKS keys) are pinned
 * by test/types/api-types-shapes.ts, whose `@ts-expect-error` lines must each fail to compile.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
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

  it('refuse a misspelt or misplaced target field, a reason outside the enum and an unknown JWK field', () => {
    const file = fileURLToPath(new URL('../types/api-types-shapes.ts', import.meta.url));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
    });
    // An @ts-expect-error whose line compiles is itself an error (TS2578), so none at all means every one refused its line.
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });
});
