/** Connection kinds and their two levels, weakest first. */
export const KINDS = ['database', 'bucket', 'auth_app'] as const;
/** A connection kind. */
export type Kind = (typeof KINDS)[number];

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
export type KindLevel = { [K in Kind]: { kind: K; level: LevelOf<K> } }[Kind];

/**
 * The level a connection gets when none is given: what connections have always granted
 * (spec, Versioning 4): connect, read-write, and client (admin is opt-in, never a default).
 */
export const DEFAULT_LEVEL = {
  database: 'connect',
  bucket: 'read-write',
  auth_app: 'client',
} as const satisfies Record<Kind, Level>;

/** The level a connection gets when none is given. */
export const defaultLevel = (kind: Kind): Level => DEFAULT_LEVEL[kind];

/** Whether `level` is one of the kind's levels. */
export const isLevelOf = (kind: Kind, level: string): level is Level =>
  (LEVELS[kind] as readonly string[]).includes(level);

/** Whether a string names a kind. */
export const isKind = (value: string): value is Kind => (KINDS as readonly string[]).includes(value);
