/**
 * Routes of round-trip-budgets.test.ts measured above their budget today, with the trips they make, held there so that none
 * gets worse while they wait for their rewrite (issue 19 note says which and why).
 */
export const OVER_BUDGET: Record<string, number> = {
};
