/**
 * What every stage of a compare after preparing the sides works from, passed as one object
 * (`ctx`): the run folder, the two checked-out sides, their bundles, and where events go.
 */
import type { Side } from "../model/result.ts";
import type { OnCompareEvent } from "./events.ts";
import type { SideTree } from "./sides/sides.ts";
import type { RunStore } from "./run/store.ts";

/** One side's compiled copy of each bench file, or why it does not compile. */
export type SideBundles = Map<string, { path?: string; error?: string }>;

/** Each side's compiled copy of each bench file (or why it does not compile), and the driver. */
export interface Bundles {
  driver: string;
  sides: Record<Side, SideBundles>;
}

export interface RunContext {
  store: RunStore;
  sides: Record<Side, SideTree>;
  bundles: Bundles;
  onEvent: OnCompareEvent;
}
