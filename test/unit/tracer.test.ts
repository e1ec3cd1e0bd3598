/** The tracer's pure parts: frame parsing, canonicalization, modes, formats. */
import { describe, expect, test } from "bun:test";
import { hasLogHeader, LOG_MAGIC, parseFrames, OP, RESULT_PENDING, RESULT_UNKNOWN, readLogFile } from "../../src/tracer/log.ts";
import { canonicalize, displayPath } from "../../src/tracer/paths.ts";
import { collectAccesses, intendedModes, outcomeModes } from "../../src/tracer/accesses.ts";
import { formatAccesses, summaryLine } from "../../src/tracer/format.ts";
import { readAccessLog, type TraceResult } from "../../src/tracer/index.ts";
import { traceScratchRoot } from "../../src/tracer/scratch.ts";
import { tmpdir } from "node:os";
import { tempDir } from "../support/xbench.ts";
import { writeFileSync } from "node:fs";
import { join } from "pathe";

const COMMIT = 0x31434258;

/** One frame as native/common/log.h's writer lays it out. */
function frame(
  rec: { op: number; pid?: number; arg?: number; result?: number; base?: string; path: string; tsc?: number },
  commit = COMMIT,
): Buffer {
  const base = Buffer.from(rec.base ?? "");
  const path = Buffer.from(rec.path);
  const len = 32 + base.length + path.length;
  const buf = Buffer.alloc((8 + len + 7) & ~7);
  buf.writeUInt32LE(commit, 0);
  buf.writeUInt32LE(len, 4);
  buf[8] = rec.op;
  buf[9] = 1;
  buf.writeUInt16LE(base.length, 10);
  buf.writeUInt32LE(rec.pid ?? 7, 12);
  buf.writeUInt32LE(rec.arg ?? 0, 16);
  buf.writeInt32LE(rec.result ?? 0, 20);
  buf.writeUInt32LE(path.length, 24);
  buf.writeBigUInt64LE(BigInt(rec.tsc ?? 0), 32);
  base.copy(buf, 40);
  path.copy(buf, 40 + base.length);
  return buf;
}

describe("parseFrames", () => {
  test("reads committed frames in order", () => {
    const { records, torn } = parseFrames(
      Buffer.concat([frame({ op: OP.OPEN, path: "/a" }), frame({ op: OP.STAT, base: "/d", path: "b" })]),
    );
    expect(torn).toBe(0);
    expect(records.map((r) => [r.op, r.base.toString(), r.path.toString()])).toEqual([
      [OP.OPEN, "", "/a"],
      [OP.STAT, "/d", "b"],
    ]);
  });

  test("skips a frame whose commit word is missing, by its length", () => {
    const { records, torn } = parseFrames(Buffer.concat([frame({ op: OP.OPEN, path: "/a" }, 0), frame({ op: OP.OPEN, path: "/b" })]));
    expect(torn).toBe(1);
    expect(records.map((r) => r.path.toString())).toEqual(["/b"]);
  });

  test("resynchronizes after garbage (a reserved frame never written)", () => {
    const garbage = Buffer.alloc(64, 0xab);
    const { records } = parseFrames(Buffer.concat([frame({ op: OP.OPEN, path: "/a" }), garbage, frame({ op: OP.OPEN, path: "/c" })]));
    expect(records.map((r) => r.path.toString())).toEqual(["/a", "/c"]);
  });

  test("zeros (the unused end of a thread's chunk) are padding, not torn records", () => {
    const { records, torn } = parseFrames(
      Buffer.concat([frame({ op: OP.OPEN, path: "/a" }), Buffer.alloc(4000), frame({ op: OP.OPEN, path: "/b" })]),
    );
    expect(torn).toBe(0);
    expect(records.map((r) => r.path.toString())).toEqual(["/a", "/b"]);
  });

  test("a truncated tail is ignored", () => {
    const f = frame({ op: OP.OPEN, path: "/a/long/path" });
    const { records } = parseFrames(Buffer.concat([frame({ op: OP.OPEN, path: "/a" }), f.subarray(0, 20)]));
    expect(records.length).toBe(1);
  });
});

describe("canonicalize", () => {
  const c = (base: string, path: string) => canonicalize(Buffer.from(base), Buffer.from(path)).toString();
  test("absolute paths are normalized lexically", () => {
    expect(c("", "/a//b/./c/../d")).toBe("/a/b/d");
    expect(c("", "/../x")).toBe("/x");
    expect(c("", "/")).toBe("/");
  });
  test("relative paths join their base", () => {
    expect(c("/w/sub", "../f")).toBe("/w/f");
    expect(c("/w", "./sub/b")).toBe("/w/sub/b");
  });
  test("`..` goes through the real folder the path before it names, as the kernel does", () => {
    const links: Record<string, string> = { "/w/lnk": "/w/sub/deep", "/w/sub/deep": "/w/sub/deep", "/w/a/lnk": "/w/sub/deep" };
    const asked: string[] = [];
    const real = (p: Buffer) => {
      asked.push(p.toString());
      const to = links[p.toString()];
      return to === undefined ? undefined : Buffer.from(to);
    };
    const r = (base: string, path: string) => canonicalize(Buffer.from(base), Buffer.from(path), real).toString();
    expect(r("", "/w/lnk/../x")).toBe("/w/sub/x");
    expect(r("/w", "lnk/../y")).toBe("/w/sub/y");
    expect(r("/w", "./a/lnk/./../x")).toBe("/w/sub/x");
    asked.length = 0;
    expect(r("/w", "a/lnk/../../z")).toBe("/w/z"); // one lookup, then the real folder's parent
    expect(asked).toEqual(["/w/a/lnk"]);
    expect(r("", "/w/gone/../x")).toBe("/w/x"); // nothing to look up: as text
    asked.length = 0;
    expect(r("/w/sub/deep", "../x")).toBe("/w/sub/x"); // the base is real already
    expect(r("", "/w/lnk/x")).toBe("/w/lnk/x"); // no `..`: the name the program used
    expect(asked).toEqual([]);
  });
  test("bytes that are not UTF-8 survive", () => {
    const out = canonicalize(Buffer.from("/d"), Buffer.from([0x78, 0xff]));
    expect([...out]).toEqual([0x2f, 0x64, 0x2f, 0x78, 0xff]);
    expect(displayPath(out).hex).toBe("2f642f78ff");
    expect(displayPath(Buffer.from("/é")).hex).toBeUndefined();
  });
});

describe("modes", () => {
  test("open flags", () => {
    expect(intendedModes(OP.OPEN, 0)).toEqual(["read"]);
    expect(intendedModes(OP.OPEN, 1 | 0x40 | 0x200)).toEqual(["write"]);
    expect(intendedModes(OP.OPEN, 2)).toEqual(["read", "write"]);
    // O_DIRECTORY alone is a lookup (a dirfd for *at calls); the listing is its getdents.
    expect(intendedModes(OP.OPEN, 0x10000)).toEqual(["stat"]);
    expect(intendedModes(OP.READDIR, 0)).toEqual(["readdir"]);
    expect(intendedModes(OP.OPEN, 0x200000)).toEqual(["stat"]);
    // O_TMPFILE (with its O_DIRECTORY) makes a file in the folder, read-write or not: a write.
    expect(intendedModes(OP.OPEN, 2 | 0x410000)).toEqual(["write"]);
    expect(intendedModes(OP.OPEN, 1 | 0x410000)).toEqual(["write"]);
  });

  test("a call that failed wrote nothing: missing on ENOENT/ENOTDIR, else stat", () => {
    expect(outcomeModes(["write"], 2)).toEqual(["missing"]);
    expect(outcomeModes(["write"], 20)).toEqual(["missing"]);
    expect(outcomeModes(["write"], 17)).toEqual(["stat"]); // mkdir of an existing folder
    expect(outcomeModes(["exec"], 13)).toEqual(["stat"]); // exec of a directory
    expect(outcomeModes(["write"], 0)).toEqual(["write"]);
    expect(outcomeModes(["read"], RESULT_UNKNOWN)).toEqual(["read"]);
    expect(outcomeModes(["exec"], RESULT_PENDING)).toEqual(["exec"]);
  });

  test("a path listed is readdir, not read, however it was opened", () => {
    const { records } = parseFrames(
      Buffer.concat([
        frame({ op: OP.OPEN, pid: 1, path: "/etc", arg: 0, tsc: 1 }),
        frame({ op: OP.READDIR, pid: 1, path: "/etc", tsc: 2 }),
      ]),
    );
    expect(collectAccesses(records).find((a) => a.path === "/etc")?.modes).toEqual(["readdir"]);
  });

  test("dedup per path, first pid, ENOENT is missing, modes ordered", () => {
    const { records } = parseFrames(
      Buffer.concat([
        frame({ op: OP.STAT, pid: 1, path: "/nonexistent-xbench-test", result: 2, tsc: 10 }),
        frame({ op: OP.OPEN, pid: 2, path: "/etc/hostname", arg: 0, tsc: 20 }),
        frame({ op: OP.EXEC, pid: 3, path: "/etc/hostname", tsc: 30 }),
        frame({ op: OP.STAT, pid: 4, path: "/etc/../etc/hostname", tsc: 40 }),
      ]),
    );
    const acc = collectAccesses(records);
    expect(acc).toEqual([
      { path: "/nonexistent-xbench-test", modes: ["missing"], pid: 1 },
      { path: "/etc/hostname", modes: ["read", "stat", "exec"], pid: 2 },
    ]);
  });

  test("the first pid is the earliest by time stamp, not by position in the log", () => {
    const { records } = parseFrames(
      Buffer.concat([
        frame({ op: OP.OPEN, pid: 5, path: "/etc/hostname", tsc: 900 }),
        frame({ op: OP.OPEN, pid: 6, path: "/etc/hostname", tsc: 100 }),
      ]),
    );
    expect(collectAccesses(records)[0]!.pid).toBe(6);
  });

  test("an unobserved result (seccomp) is missing only if the path does not exist now", () => {
    const { records } = parseFrames(
      Buffer.concat([
        frame({ op: OP.OPEN, path: "/nonexistent-xbench-test", result: RESULT_UNKNOWN }),
        frame({ op: OP.OPEN, path: "/", result: RESULT_UNKNOWN }),
        frame({ op: OP.OPEN, path: "/nonexistent-created", arg: 0x41, result: RESULT_UNKNOWN }),
      ]),
    );
    expect(collectAccesses(records).map((a) => a.modes)).toEqual([["missing"], ["read"], ["write"]]);
  });
});

describe("formats", () => {
  const result: TraceResult = {
    exitCode: 0,
    accesses: [
      { path: "/b", modes: ["read"], pid: 2 },
      { path: "/a", modes: ["write", "missing"], pid: 1 },
    ],
    complete: true,
    incompleteReasons: [],
    changes: [],
    backend: "auto",
    backendsUsed: ["preload"],
  };
  test("summary counts per mode, backend, completeness", () => {
    expect(summaryLine(result)).toBe(
      "traced 2 paths (1 read, 1 write, 0 readdir, 0 stat, 0 exec, 1 missing); backend auto (used: preload); complete",
    );
  });
  test("ndjson is sorted by path, one access per line", () => {
    expect(formatAccesses(result, "ndjson")).toBe(
      '{"path":"/a","modes":["write","missing"],"pid":1}\n{"path":"/b","modes":["read"],"pid":2}\n',
    );
  });
  test("json carries the verdict", () => {
    const j = JSON.parse(formatAccesses(result, "json"));
    expect(j).toMatchObject({ backend: "auto", complete: true, exitCode: 0 });
    expect(j.accesses[0].path).toBe("/a");
  });
});

describe("where trace logs go", () => {
  test("shared memory only when it is writable and has room for a full log", () => {
    const { dir, cleanup } = tempDir();
    try {
      expect(traceScratchRoot(dir, 1)).toBe(dir);
      expect(traceScratchRoot(dir, Number.MAX_SAFE_INTEGER)).toBe(tmpdir());
      expect(traceScratchRoot(`${dir}/missing`, 1)).toBe(tmpdir());
    } finally {
      cleanup();
    }
  });
});

describe("a log the launcher never wrote", () => {
  test("no file, an empty one, or one without the magic: the tracer did not start; with the magic: a log to read", () => {
    const { dir, cleanup } = tempDir("xbench-trace-header-");
    try {
      const file = join(dir, "log");
      expect(hasLogHeader(file)).toBe(false);
      writeFileSync(file, "");
      expect(hasLogHeader(file)).toBe(false);
      writeFileSync(file, Buffer.alloc(4096));
      expect(hasLogHeader(file)).toBe(false);
      const head = Buffer.alloc(16);
      head.writeBigUInt64LE(LOG_MAGIC, 0);
      head.writeUInt32LE(999, 8); // another version's log: still one the launcher wrote
      writeFileSync(file, head);
      expect(hasLogHeader(file)).toBe(true);
      expect(() => readAccessLog(file)).toThrow();
    } finally {
      cleanup();
    }
  });
});

/** A log file of `body` (frames) behind a header, in `dir`. */
function logFile(dir: string, body: Buffer): string {
  const head = Buffer.alloc(4096);
  head.writeBigUInt64LE(0x00314f4c4e525458n, 0);
  head.writeUInt32LE(2, 8);
  head.writeUInt32LE(4096, 12);
  head.writeBigUInt64LE(BigInt(4096 + body.length), 16);
  head.writeBigUInt64LE(BigInt(4096 + body.length), 24);
  const file = join(dir, "log");
  writeFileSync(file, Buffer.concat([head, body]));
  return file;
}

describe("streaming the log", () => {
  test("frames straddling read chunks, and a torn one among them, read as from one buffer", () => {
    const { dir, cleanup } = tempDir("xbench-trace-stream-");
    try {
      const frames: Buffer[] = [];
      for (let i = 0; i < 6000; i++) frames.push(frame({ op: OP.STAT, pid: i, path: `/p/${"x".repeat(i % 50)}/${i}`, tsc: i }));
      frames[3000] = frame({ op: OP.STAT, path: "/torn" }, 0); // commit word never written
      const body = Buffer.concat(frames);
      const file = logFile(dir, body);
      const whole = parseFrames(body);
      const streamed = readLogFile(file); // body > 5 chunks of 64 KiB
      expect(body.length).toBeGreaterThan(5 * 65552);
      expect(streamed.records.length).toBe(5999);
      expect(streamed.torn).toBe(whole.torn);
      expect(streamed.records.map((r) => r.path.toString())).toEqual(whole.records.map((r) => r.path.toString()));
      const accesses = readAccessLog(file).accesses;
      expect(accesses.length).toBe(5999);
      expect(accesses.find((a) => a.path === "/p/x/1")?.pid).toBe(1);
    } finally {
      cleanup();
    }
  });

  test("a relative path recorded without its folder (a removed cwd) is left out, and the trace says so", () => {
    const { dir, cleanup } = tempDir("xbench-trace-unresolved-");
    try {
      const body = Buffer.concat([frame({ op: OP.STAT, path: "x", result: 2 }), frame({ op: OP.STAT, path: "/etc/hostname" })]);
      const log = readAccessLog(logFile(dir, body));
      expect(log.accesses.map((a) => a.path)).toEqual(["/etc/hostname"]);
      expect(log.complete).toBe(false);
      expect(log.incompleteReasons.join()).toContain("removed");
    } finally {
      cleanup();
    }
  });
});
