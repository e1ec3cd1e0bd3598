/**
 * native/common/log.h and src/tracer/log.ts describe one record format from two sides; every
 * platform's helper (Linux, Windows, macOS) writes it and one reader reads it. Their constants
 * are compared here, so a flag, op or source added on one side and not the other (or two
 * platforms taking the same bit) fails before any trace is misread.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import * as log from "../../src/tracer/log.ts";

const header = readFileSync(join(import.meta.dir, "../../native/common/log.h"), "utf8");

/** `NAME = value` from `#define NAME value` and enum entries, for names starting with `prefix`. */
function constants(prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of header.matchAll(/^\s*#define\s+(\w+)\s+(0x[0-9a-f]+|\d+)u?\b|\b(\w+)\s*=\s*(0x[0-9a-f]+|\d+)\s*[,}/]/gim)) {
    const name = m[1] ?? m[3]!;
    if (name.startsWith(prefix)) out[name.slice(prefix.length)] = Number(m[2] ?? m[4]);
  }
  return out;
}

test("header flags: the same names and bits, no bit taken twice", () => {
  const c = constants("XB_FLAG_");
  const { INCOMPLETE, ...flags } = log.FLAG;
  expect(c).toEqual(flags);
  expect(new Set(Object.values(flags)).size).toBe(Object.values(flags).length);
  expect(constants("XB_FLAGS_").INCOMPLETE).toBe(INCOMPLETE);
  // Incomplete: every flag that says something was not traced; none of the "used" ones, nor the
  // "changed" ones (the command ran differently, and what ran was traced).
  for (const [name, bit] of Object.entries(flags))
    expect([name, (INCOMPLETE & bit) !== 0]).toEqual([name, !name.startsWith("USED_") && !name.startsWith("CHANGED_")]);
});

test("ops, sources and record flags", () => {
  expect(constants("XB_OP_")).toEqual({ ...log.OP });
  expect(constants("XB_SRC_")).toEqual({ PRELOAD: log.SRC_PRELOAD, SECCOMP: log.SRC_SECCOMP, DLL: log.SRC_DLL });
  const rf = constants("XB_RF_");
  expect([rf.TRUNCATED, rf.UNREADABLE]).toEqual([log.RF_TRUNCATED, log.RF_UNREADABLE]);
});

test("version, header size, magic", () => {
  expect(constants("XBENCH_LOG_").VERSION).toBe(log.LOG_VERSION);
  expect(constants("XB_LOG_").HEADER_SIZE).toBe(log.HEADER_SIZE);
  expect(BigInt(header.match(/#define XB_LOG_MAGIC (0x[0-9a-f]+)ULL/i)![1]!)).toBe(log.LOG_MAGIC);
});
