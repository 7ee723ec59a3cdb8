/**
 * The fields a plugin kind's service is made with beside its name (`creation.fields`,
 * service-kind.ts), described for a form that offers them, and a form's text values turned back
 * into the body its create route takes (routes/plugin-services.ts validates that body; this only
 * converts).
 */
import { z } from 'zod';

/** One field, as a form offers it. */
export interface CreationField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  required: boolean;
  /** The values it may take, when it is one of a list. */
  choices?: string[];
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
}

/** A property of the fields' JSON Schema (what zod's `toJSONSchema` writes for the types a form can hold). */
interface FieldSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

const FORM_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** The fields of `shape`, in its order; a field a form cannot hold (an object, a list) is offered as text. */
export function creationFields(shape: z.ZodRawShape): CreationField[] {
  const schema = z.toJSONSchema(z.object(shape), { unrepresentable: 'any', io: 'input' }) as {
    properties?: Record<string, FieldSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = FORM_TYPES.has(property.type ?? '') ? (property.type as CreationField['type']) : 'string';
    const preset = property.default;
    return {
      name,
      type,
      required: required.has(name),
      ...(property.enum ? { choices: property.enum.map(String) } : {}),
      ...(property.minimum !== undefined ? { minimum: property.minimum } : {}),
      ...(property.maximum !== undefined ? { maximum: property.maximum } : {}),
      ...(typeof preset === 'string' || typeof preset === 'number' || typeof preset === 'boolean'
        ? { default: preset }
        : {}),
    };
  });
}

/**
 * A form's values (text, a checkbox `on` when ticked) as the create route's body: a number field's
 * text as a number (text that is none stays text, for the route to refuse by name), a checkbox as
 * true or false, a blank field left out so the route applies its default or names it missing.
 */
export function creationBody(fields: CreationField[], form: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = form[field.name];
    if (field.type === 'boolean') {
      body[field.name] = raw === 'on' || raw === 'true';
      continue;
    }
    if (raw === undefined || raw.trim() === '') continue;
    if (field.type === 'string') {
      body[field.name] = raw;
      continue;
    }
    const value = Number(raw.trim());
    body[field.name] = Number.isFinite(value) ? value : raw;
  }
  return body;
}
