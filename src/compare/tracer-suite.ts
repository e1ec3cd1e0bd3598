import { join } from "pathe";
import { killRunningChildren } from "../runner/spawn.ts";
import { buildBaseHelpers, requireLinuxBackends } from "../suites/tracer/index.ts";
import { withCleanup } from "../util/scope.ts";
import { ignoreEvents, type OnCompareEvent } from "./events.ts";
import { makeRunTemp } from "./run/reclaim.ts";
import type { resolveRevisions } from "./plan.ts";
import { checkoutHead, checkoutSide, linkDependencies } from "./sides/sides.ts";

/** The helper folders of both sides, each built from that side's own native/ sources. */
export interface SideHelpers {
  head: string;
  base: string;
}

/**
 * `compare --suite tracer`: builds base's helpers in a base worktree and head's from head
 * (the working tree, or a worktree of --head), runs `measure` with them, and removes
 * everything it made on every exit path.
 */
export async function withSideHelpers<T>(
  sides: ReturnType<typeof resolveRevisions> & { headRef?: string },
  measure: (helpers: SideHelpers) => T | Promise<T>,
  onEvent: OnCompareEvent = ignoreEvents,
): Promise<T> {
  requireLinuxBackends();
  const onSignal = (signal: string) => {
    killRunningChildren(); // a helper build in flight (its own process group)
    onEvent({ type: "interrupted", signal });
  };
  return withCleanup(onSignal, async (cleanup) => {
    const tmp = makeRunTemp("xbench-tracer-compare-", sides.repo, cleanup, onEvent);
    const at = { repo: sides.repo, tmp, cleanup, onEvent };
    const base = checkoutSide(at, "base", sides.base.sha);
    const head = checkoutHead(at, sides.head.sha, sides.headRef);
    for (const side of [base, head]) linkDependencies(sides.repo, side);
    onEvent({ type: "building-helpers", side: "base", sha: sides.base.sha });
    const baseHelpers = await buildBaseHelpers(base.root, join(tmp, "helpers-base"));
    onEvent({ type: "building-helpers", side: "head", sha: sides.head.sha });
    const headHelpers = await buildBaseHelpers(head.root, join(tmp, "helpers-head"));
    return await measure({ head: headHelpers, base: baseHelpers });
  });
}
