/**
 * The supervisor's seccomp filter answers every call number as its list says (docs/tracer.md):
 * test/fixtures/trace/filter-check.c builds native/linux/filter.c as it is and runs the filter in a
 * classic-BPF interpreter for every number of the helper's ABI, of a foreign ABI and of x32, in
 * both modes. The filter finds a number by binary search; an off-by-one in that search lets a file
 * call through untraced, which the oracle would catch only for the calls its programs make.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { ARM64_CC, QEMU_USER, qemuUserMissing } from "../support/arm64.ts";
import { compile, fixture, have } from "../support/trace.ts";
import { tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-filter-check-");
afterAll(() => tmp.cleanup());

function check(run: string[]): { code: number | null; lines: string[] } {
  const r = spawnSync(run[0]!, run.slice(1), { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, lines: r.stdout.trimEnd().split("\n") };
}

describe.skipIf(!have("gcc"))("the seccomp filter, every call number", () => {
  test("x86-64: each listed call notifies, AT_EMPTY_PATH stats and (hybrid) trampoline calls pass, the rest are allowed", () => {
    const out = join(tmp.dir, "filter-check");
    compile("gcc", ["-O1", "-Wall", "-Werror", "-o", out, fixture("filter-check.c")]);
    const r = check([out]);
    expect(r.lines).toEqual([expect.stringMatching(/^checked \d{4,}$/)]);
    expect(r.code).toBe(0);
  });

  test.skipIf(qemuUserMissing() !== undefined)("arm64 (its own numbers, no pre-*at calls), under qemu-user", () => {
    const out = join(tmp.dir, "filter-check-arm64");
    compile(ARM64_CC, ["-O1", "-Wall", "-Werror", "-static", "-o", out, fixture("filter-check.c")]);
    const r = check([QEMU_USER, out]);
    expect(r.lines).toEqual([expect.stringMatching(/^checked \d{4,}$/)]);
    expect(r.code).toBe(0);
  });
});
