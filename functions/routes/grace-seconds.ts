/**
 * `?grace_seconds=N` of a rotate (docs/contract.md §14): how long the old secret stays valid
 * beside the new one, a whole number of seconds from 0 to 86400; anything else is 400
 * VALIDATION_FAILED naming `grace_seconds`, with nothing changed.
 */
import { z } from '../lib/openapi';

/** The most a rotate's old secret may be kept: a day. */
export const MAX_GRACE_SECONDS = 86_400;

/** The query field `grace_seconds`, parsed to a number of seconds (absent: undefined). */
export const GraceSecondsQuery = z
  .string()
  .regex(/^\d{1,6}$/, `a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`)
  .transform(Number)
  .refine((n) => n <= MAX_GRACE_SECONDS, `at most ${MAX_GRACE_SECONDS} seconds (a day)`)
  .optional()
  .openapi({
    type: 'integer',
    minimum: 0,
    maximum: MAX_GRACE_SECONDS,
    description: `seconds (0 to ${MAX_GRACE_SECONDS}) the old secret keeps working beside the new one`,
  });
