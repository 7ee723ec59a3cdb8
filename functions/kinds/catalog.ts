/**
 * What the registry tells clients about every kind and engine (GET /api/v1/kinds): the words,
 * levels and engines the CLI and the console offer, read from the descriptors instead of a list
 * of names in each client.
 */
import type { Kind, Level } from '../domain/levels';
import { type CreationField, creationFields } from './creation-fields';
import { engines, kindSegment, pluginKinds, serviceKinds } from './registry';

/** One kind as clients show it. */
export interface CatalogKind {
  kind: string;
  noun: string;
  plural: string;
  command_words: string[];
  levels: Level[];
  level_meanings: Record<string, string>;
  level_change_consequence: string | null;
  own_credentials: boolean;
  engines: string[] | null;
  services_path: string;
  creation_fields: CreationField[] | null;
}

/** One database engine as clients show it. */
export interface CatalogEngine {
  engine: string;
  label: string;
  default: boolean;
  tunnel: boolean;
}

/** The catalog of every registered kind and engine, in the registry's order (the default engine first). */
export function kindCatalog(): { kinds: CatalogKind[]; engines: CatalogEngine[] } {
  const all = engines();
  const plugins = new Map(pluginKinds().map((k) => [k.name, k]));
  const creationOf = (kind: string) => {
    const plugin = plugins.get(kind);
    return plugin ? creationFields(plugin.creation.fields) : null;
  };
  return {
    kinds: serviceKinds().map((k) => ({
      kind: k.name,
      noun: k.word,
      plural: k.plural,
      command_words: [...k.commandWords],
      levels: k.levels.map(({ level }) => level),
      level_meanings: Object.fromEntries(k.levels.map(({ level, meaning }) => [level, meaning])),
      level_change_consequence: k.levelChangeConsequence,
      own_credentials: k.credentials !== null,
      engines: k.hasEngine ? all.map((e) => e.name) : null,
      services_path: kindSegment(k.name as Kind),
      creation_fields: creationOf(k.name),
    })),
    engines: all.map((e, i) => ({
      engine: e.name,
      label: e.label,
      default: i === 0,
      tunnel: e.tunnelEndpoint !== undefined,
    })),
  };
}
