/**
 * Where a bench process draws its random heap layout (docs/compare.md, "Layout").
 *
 * Two builds of a module lay out their objects and compiled code differently, and V8 lays them
 * out the same way in every process that runs the same steps: a bias that follows a build, not
 * noise. A row whose code did not change, in a module that did, then reads a few tenths of a
 * percent slower or faster in every round. A random amount of live heap drawn before each side
 * loads makes the offset of each side's objects random per process, so the layout becomes noise
 * that the paired rounds average out (Curtsinger & Berger, "Stabilizer", ASPLOS 2013, do the same
 * for native code, heap and stack).
 */
import type { JobKind, LayoutDraw } from "../../runner/protocol.ts";

/**
 * One side per process: draw once before anything loads. Both sides in one process: before each
 * side, but only when their code differs; identical code (an A/A run) keeps one shared layout,
 * whose effect the alternating order of sides cancels within the run. `XBENCH_LAYOUT=fixed`
 * draws nothing (to measure what the draw does).
 */
export function layoutDraw(kind: JobKind, codeDiffers: () => boolean, setting: string | undefined): LayoutDraw {
  if (setting === "fixed" || kind === "inventory") return "none";
  if (kind === "isolated") return "process";
  return codeDiffers() ? "side" : "none";
}
