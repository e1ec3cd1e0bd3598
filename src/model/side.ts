/** The two sides of a compare: the code before the change and the code with it. */
export type Side = "base" | "head";

/** Both sides, base first: the order every per-side table and loop follows. */
export const SIDES = ["base", "head"] as const satisfies readonly Side[];
