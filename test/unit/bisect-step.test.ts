/**
 * Bisect's pieces around the search (docs/bisect.md): the commits it prepares as sides, named
 * as compare names its own.
 */
import { describe, expect, test } from "bun:test";
import { bisectCommit, compareCommits } from "../../src/compare/sides/prepare.ts";

const BASE = "a".repeat(40);
const HEAD = "b".repeat(40);

describe("the commits prepared as sides", () => {
  test("a compare's are base and head, head the working tree itself unless --head REF", () => {
    const revision = { ref: "x", dirty: false };
    const plan = { base: { ...revision, sha: BASE }, head: { ...revision, sha: HEAD } };
    expect(compareCommits(plan)).toEqual([
      { side: "base", sha: BASE, name: "base" },
      { side: "head", sha: HEAD, name: "head", workingTree: true },
    ]);
    expect(compareCommits({ ...plan, head: { ...plan.head, headRef: "main" } })[1]).toEqual({ side: "head", sha: HEAD, name: "head" });
  });

  test("bisect's each get a folder of their own, commit-<sha>, whichever side they play", () => {
    expect(bisectCommit("base", BASE)).toEqual({ side: "base", sha: BASE, name: `commit-${BASE.slice(0, 12)}` });
    expect(bisectCommit("head", HEAD).name).toBe(`commit-${HEAD.slice(0, 12)}`);
    expect(bisectCommit("head", BASE).name).toBe(bisectCommit("base", BASE).name);
  });
});
