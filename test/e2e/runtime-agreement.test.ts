import { describe, expect, test } from "bun:test";
import {
  BENCH_JS,
  ESCAPE_BASE_JS,
  ESCAPE_HEAD_JS,
  INPUTS_JS,
  SYNTHETIC_STEPS,
  syntheticJs,
} from "../../bench/runtime-agreement/fixture.ts";
import { compareIn, repoPerTest, rowOf } from "../support/compare.ts";

/**
 * The bundle and driver path on deno (bundles for target node, the driver, the sampler's
 * loops, deno's clock) finds a large speed-up in its direction and about its size: head does
 * 40% less arithmetic (`synthetic`); and head's scan skips long clean runs (`encodeHTML page`,
 * the fixture modeled on entities' "faster scanning" commit), a smaller change. bench/runtime-agreement.ts
 * compares the same fixture with a direct script on every runtime.
 */
describe("deno: the bundle/driver path agrees in direction with a large change", () => {
  const repoWith = repoPerTest();

  test("head 40% faster (synthetic) is `faster` under --runtime deno, about -40%; a faster scanning loop (encodeHTML page) below zero", () => {
    const side = (which: "base" | "head") => ({
      "src/escape.js": which === "base" ? ESCAPE_BASE_JS : ESCAPE_HEAD_JS,
      "src/synthetic.js": syntheticJs(SYNTHETIC_STEPS[which]),
      "src/inputs.js": INPUTS_JS,
    });
    const repo = repoWith({
      "package.json": JSON.stringify({ name: "agreement", private: true, type: "module" }),
      "bench/agree.bench.js": BENCH_JS,
      ...side("base"),
    });
    repo.write(side("head"));
    repo.commit("head: faster");
    const r = compareIn(repo, ["--base", "HEAD~1", "--head", "HEAD", "--runtime", "deno", "--rounds", "6", "agree"], { timeMs: 100 });
    expect(r.result?.runtime).toBe("deno");
    const synthetic = rowOf(r.result, "synthetic").stats!;
    expect(synthetic.verdict).toBe("faster");
    // 3000 of 5000 steps: about -40%; a reversed, swapped or diluted measurement lands far outside.
    expect(synthetic.delta).toBeGreaterThan(-0.55);
    expect(synthetic.delta).toBeLessThan(-0.25);
    // The scanning change is smaller (about -13% on deno here): its estimate, not its verdict.
    expect(rowOf(r.result, "encodeHTML page").stats!.delta).toBeLessThan(0);
  });
});
