/**
 * The delivery target form's fields, read from the registry's own schemas (each target's `input`
 * in functions/adapters/targets): one field per key, shared by every type that has it, and tagged
 * with those types, so the stylesheet shows a field only while one of its types is chosen
 * (scripts/local/console-css.ts) and a post keeps only the chosen type's fields. A new target
 * brings its fields with its schema.
 */
import { z } from 'zod';
import { TARGETS } from '../../adapters/targets';
import { labelOf } from '../copy';

/** One field of the form. */
export interface TargetField {
  name: string;
  label: string;
  /** text, a write-only secret, or a set of checkboxes. */
  input: 'text' | 'secret' | 'choices';
  choices: readonly string[];
  optional: boolean;
  /** The target types that have it. */
  types: string[];
}

/** The keys every target keeps encrypted (never shown, never pre-filled). */
const SECRETS = new Set(['api_token', 'secret']);

const LABELS: Record<string, string> = {
  url: 'Webhook URL',
  secret: 'Webhook secret',
  api_token: 'API token',
  account_id: 'Account ID',
  script_name: 'Script name',
  project_id: 'Project ID',
  team_id: 'Team ID',
  app_name: 'App name',
};

/** A schema's field as the form shows it. */
function fieldOf(name: string, schema: z.ZodType): Omit<TargetField, 'types'> {
  const optional = schema instanceof z.ZodOptional;
  const inner = optional ? (schema as z.ZodOptional<z.ZodType>).unwrap() : schema;
  const element = inner instanceof z.ZodArray ? (inner as z.ZodArray<z.ZodType>).element : undefined;
  const choices = element instanceof z.ZodEnum ? (element.options as string[]) : [];
  const input = SECRETS.has(name) ? 'secret' : choices.length > 0 ? 'choices' : 'text';
  return { name, label: LABELS[name] ?? labelOf(name), input, choices, optional };
}

/** Every target's fields, in the registry's order, each once with the types that use it. */
export function targetFields(): TargetField[] {
  const fields = new Map<string, TargetField>();
  for (const target of TARGETS) {
    const input = target.input as unknown;
    if (!(input instanceof z.ZodObject)) continue;
    for (const [name, schema] of Object.entries(input.shape as Record<string, z.ZodType>)) {
      if (name === 'type') continue;
      const known = fields.get(name);
      if (known) known.types.push(target.type);
      else fields.set(name, { ...fieldOf(name, schema), types: [target.type] });
    }
  }
  return [...fields.values()];
}

/** The target types, in the registry's order. */
export const targetTypes = (): string[] => TARGETS.map((t) => t.type);

/** The PUT body of a posted form: the chosen type and only its own fields. */
export function targetBody(form: Record<string, string>): Record<string, unknown> {
  const type = form.type ?? '';
  const body: Record<string, unknown> = { type };
  for (const field of targetFields().filter((f) => f.types.includes(type))) {
    if (field.input === 'choices') {
      const chosen = field.choices.filter((c) => form[`${field.name}_${c}`] === 'yes');
      if (chosen.length > 0) body[field.name] = chosen;
    } else if (form[field.name]) body[field.name] = form[field.name];
  }
  return body;
}
