/**
 * The built-in connection kinds and their two levels, weakest first: the types the code that
 * knows a kind by name narrows with. At run time every kind, these and any a plugin registers
 * (functions/kinds/registry.ts `registerKind`), is read from the table below.
 */
export const KINDS = ['database', 'bucket', 'auth_app'] as const;
/** A connection kind. */
export type Kind = (typeof KINDS)[number];

/** The key of one connection among a site's: its kind and the service's id. */
export const connectionKey = (kind: Kind, resourceId: string): string => `${kind}:${resourceId}`;

export const LEVELS = {
  database: ['read-only', 'connect'],
  bucket: ['read', 'read-write'],
  auth_app: ['client', 'admin'],
} as const satisfies Record<Kind, readonly [string, string]>;

/** A level of some kind. */
export type Level = (typeof LEVELS)[Kind][number];
/** The levels of kind `K`. */
export type LevelOf<K extends Kind> = (typeof LEVELS)[K][number];
/** A database connection's level. */
export type DatabaseLevel = LevelOf<'database'>;
/** A bucket connection's level. */
export type BucketLevel = LevelOf<'bucket'>;
/** An auth app connection's level. */
export type AuthAppLevel = LevelOf<'auth_app'>;
/** A level with the kind it belongs to: narrowing `kind` narrows `level`. */
export type KindLevel<K extends Kind = Kind> = { [P in K]: { kind: P; level: LevelOf<P> } }[K];
/** A level of a kind whose connections hold a credential of their own (a database or a bucket). */
export type CredentialLevel = KindLevel<'database' | 'bucket'>;

/** What a request asks for: a service of some kind and, optionally, a level of that kind. */
export type DesiredLevel<K extends Kind = Kind> = { [P in K]: { kind: P; level?: LevelOf<P> } }[K];

/**
 * The level a connection gets when none is given, what connections have always granted:
 * connect, read-write, and client (admin is opt-in, never a default).
 */
export const DEFAULT_LEVEL: { [K in Kind]: LevelOf<K> } = {
  database: 'connect',
  bucket: 'read-write',
  auth_app: 'client',
};

/** A kind's levels, weakest first, and the one a connection gets when none is given. */
interface KindLevels {
  levels: readonly string[];
  defaultLevel: string;
}

/** Every kind known now, in registration order: the built-in ones, then those the registry adds. */
const registered = new Map<string, KindLevels>(
  KINDS.map((kind) => [kind, { levels: LEVELS[kind], defaultLevel: DEFAULT_LEVEL[kind] }]),
);

/**
 * Makes kind `kind` known with its levels (weakest first) and its default level; returns the
 * function that forgets it again. The kinds registry calls it for a kind a plugin registers.
 */
export function registerKindLevels(
  kind: string,
  levels: readonly string[],
  defaultLevel: string,
): () => void {
  if (registered.has(kind)) throw new Error(`kind ${kind} is already registered`);
  if (levels.length === 0 || !levels.includes(defaultLevel))
    throw new Error(`kind ${kind}: its default level must be one of its levels`);
  registered.set(kind, { levels, defaultLevel });
  return () => {
    registered.delete(kind);
  };
}

/** Every kind known now, built-in ones first. */
export const kindNames = (): Kind[] => [...registered.keys()] as Kind[];

/** The levels of kind `kind`, weakest first ([] for no kind). */
export const levelsOf = <K extends Kind>(kind: K): readonly LevelOf<K>[] =>
  (registered.get(kind)?.levels ?? []) as readonly LevelOf<K>[];

/** Every level of any kind known now, each once. */
export const allLevels = (): Level[] =>
  [...new Set([...registered.values()].flatMap((k) => k.levels))] as Level[];

/** The level asked for, or the kind's default when none is. */
export const levelOrDefault = <K extends Kind>(want: DesiredLevel<K>): KindLevel<K> =>
  ({ kind: want.kind, level: want.level ?? registered.get(want.kind)?.defaultLevel }) as KindLevel<K>;

/** Whether `level` is one of the kind's levels: where a request or a form names a level. */
export const isLevelOf = <K extends Kind>(kind: K, level: string): level is LevelOf<K> =>
  registered.get(kind)?.levels.includes(level) ?? false;

/**
 * A stored connection's kind and level as one value. Both were written together from a
 * KindLevel (the request's schema checked it), so the pairing holds by construction.
 */
export const storedLevel = (row: { kind: Kind; level: Level }): KindLevel => row as KindLevel;

/** The weaker-to-stronger position of a level within its kind (its levels are listed weakest first). */
export const levelRank = (l: KindLevel): number => levelsOf(l.kind).indexOf(l.level);

/** Whether a string names a kind known now. */
export const isKind = (value: string): value is Kind => registered.has(value);
