/** Project roles, weakest first. */
export const ROLES = ['read', 'write', 'admin', 'owner'] as const;
/** A project role. */
export type Role = (typeof ROLES)[number];

/** Whether `held` is at least `needed`. */
export const roleAtLeast = (held: Role, needed: Role): boolean =>
  ROLES.indexOf(held) >= ROLES.indexOf(needed);
