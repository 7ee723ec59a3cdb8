/** Why a site's variables changed (contract §6 `reason`; `variables` for its own, §14; `sync` when a target is set, §11). */
export const PATCH_REASONS = [
  'connect',
  'disconnect',
  'level',
  'rotate',
  'credential',
  'key',
  'promote',
  'variables',
  'sync',
] as const;

/** One of {@link PATCH_REASONS}. */
export type PatchReason = (typeof PATCH_REASONS)[number];
