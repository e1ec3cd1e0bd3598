/** What commands write: compare events as lines, and report targets checked before a run. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { XbenchError } from "../../src/errors.ts";
import { eventMessage, renderCompareEvents } from "../../src/output/compare-events.ts";
import { checkOutputTargets } from "../../src/output/writer.ts";

describe("compare events on stderr", () => {
  test("notices read as the engine used to log them", () => {
    expect(eventMessage({ type: "isolated", file: "a.bench.ts", because: "the file calls isolate()" })).toEqual({
      level: "info",
      text: "a.bench.ts: one side per process (the file calls isolate())",
    });
    expect(eventMessage({ type: "reclaimed", pids: [41], worktrees: 1 })?.text).toBe(
      "reclaimed 1 worktree and 1 temp folder left by dead xbench run (pid 41)",
    );
    expect(eventMessage({ type: "interrupted", signal: "SIGINT", runDir: "/r" })?.text).toBe(
      "SIGINT: stopped. Measured rounds are saved; continue with: xbench compare --resume /r",
    );
    expect(eventMessage({ type: "interrupted", signal: "SIGTERM" })?.text).toBe("SIGTERM: stopped");
    expect(eventMessage({ type: "round", round: 1, elapsedS: 1 })).toBeUndefined();
  });

  test("a round draws the progress line, with the widest interval when there is one", () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    const events = renderCompareEvents(stream);
    events.onEvent({ type: "round", round: 8, elapsedS: 20, widest: { halfWidth: 0.02, target: 0.01 } });
    events.done();
    expect(written).toHaveLength(1);
    expect(written[0]).toStartWith("round 8 · 0:20 elapsed · widest ±2.0% (target ±1.0%) · load ");
  });
});

describe("report targets", () => {
  const dir = mkdtempSync(join(tmpdir(), "xbench-output-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("stdout, nothing, and a file in an existing folder pass", () => {
    expect(() => checkOutputTargets({ json: "-", markdown: undefined })).not.toThrow();
    expect(() => checkOutputTargets({ json: "", markdown: join(dir, "report.md") })).not.toThrow();
  });

  test("a missing folder or a folder as the file is a usage error before anything runs", () => {
    for (const targets of [{ markdown: join(dir, "missing", "report.md") }, { json: dir }, { html: join(dir, "missing", "r.html") }]) {
      let error: unknown;
      try {
        checkOutputTargets(targets);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(XbenchError);
      expect((error as XbenchError).kind).toBe("usage");
      expect((error as Error).message).toStartWith(`--${Object.keys(targets)[0]} `);
    }
  });
});
