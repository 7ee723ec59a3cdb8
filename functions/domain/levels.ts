/** Connection kinds and their two levels, weakest first; the second is the default. */
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

/** The level a connection gets when none is given. */
export const defaultLevel = (kind: Kind): Level => LEVELS[kind][1];

/** Whether `level` is one of the kind's levels. */
export const isLevelOf = (kind: Kind, level: string): level is Level =>
  (LEVELS[kind] as readonly string[]).includes(level);

/** Whether a string names a kind. */
export const isKind = (value: string): value is Kind => (KINDS as readonly string[]).includes(value);
