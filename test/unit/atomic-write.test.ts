/** Replacing a file whole (docs/reliability.md): what a reader or the user's setup sees afterwards. */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { ioReason, writeFileAtomic } from "../../src/util/atomic-write.ts";
import { tempDir } from "../support/xbench.ts";

let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

function folder(): string {
  const { dir, cleanup } = tempDir("xbench-atomic-");
  undo.push(cleanup);
  return dir;
}

test("a new file, then a replacement that keeps the old file's permissions; no temporary file is left", () => {
  const dir = folder();
  const file = join(dir, "report.json");
  writeFileAtomic(file, "first\n");
  expect(readFileSync(file, "utf8")).toBe("first\n");
  chmodSync(file, 0o640);
  writeFileAtomic(file, "second\n");
  expect(readFileSync(file, "utf8")).toBe("second\n");
  expect(statSync(file).mode & 0o777).toBe(0o640);
  expect(readdirSync(dir)).toEqual(["report.json"]);
});

test("through a symbolic link the target is replaced and the link stays a link", () => {
  const dir = folder();
  const target = join(dir, "real.md");
  const link = join(dir, "link.md");
  writeFileSync(target, "old\n");
  symlinkSync(target, link);
  writeFileAtomic(link, "new\n");
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readFileSync(target, "utf8")).toBe("new\n");
});

test("a device is written in place: /dev/null cannot be renamed over", () => {
  expect(() => writeFileAtomic("/dev/null", "anything\n")).not.toThrow();
});

test("an error with a code reads as words and the code; one without is not the disk's", () => {
  expect(ioReason(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }))).toBe(
    "no space left on device (ENOSPC)",
  );
  expect(ioReason(Object.assign(new Error("EXDEV: cross-device link not permitted, rename"), { code: "EXDEV" }))).toBe(
    "cross-device link not permitted (EXDEV)",
  );
  expect(ioReason(new Error("plain"))).toBeUndefined();
});
