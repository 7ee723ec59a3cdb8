import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { creationBody, creationFields } from './creation-fields';

const shape = {
  max_memory_mb: z.number().int().min(16).max(4096).optional(),
  region: z.enum(['eu', 'us']),
  label: z.string().max(20),
  persistent: z.boolean().default(true),
};

describe("a plugin kind's creation fields", () => {
  it('are offered in their order with their type, whether required, their bounds, choices and default', () => {
    expect(creationFields(shape)).toEqual([
      { name: 'max_memory_mb', type: 'integer', required: false, minimum: 16, maximum: 4096 },
      { name: 'region', type: 'string', required: true, choices: ['eu', 'us'] },
      { name: 'label', type: 'string', required: true },
      { name: 'persistent', type: 'boolean', required: false, default: true },
    ]);
  });

  it('are none for a kind made with its name alone', () => {
    expect(creationFields({})).toEqual([]);
  });

  it("turn a form's text into the route's body: numbers as numbers, a checkbox as true or false, blanks left out", () => {
    const fields = creationFields(shape);
    expect(
      creationBody(fields, { max_memory_mb: ' 128 ', region: 'eu', label: 'main', persistent: 'on' }),
    ).toEqual({
      max_memory_mb: 128,
      region: 'eu',
      label: 'main',
      persistent: true,
    });
    expect(creationBody(fields, { max_memory_mb: '', region: 'us', label: '' })).toEqual({
      region: 'us',
      persistent: false,
    });
  });

  it('keep a number field that holds no number as text, so the route refuses it by name', () => {
    expect(creationBody(creationFields(shape), { max_memory_mb: 'lots' })).toMatchObject({
      max_memory_mb: 'lots',
    });
  });
});
