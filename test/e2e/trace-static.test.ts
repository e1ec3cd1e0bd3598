/** Statically linked programs and Go programs, which preload cannot see: seccomp must catch them. */
import { afterAll, describe, expect, test } from "bun:test";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { compile, fixture, have, skipBecause, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-static-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);
const data = join(dir, "data.txt");
writeFileSync(data, "static data\n");

/** Builds a Go fixture into the temp dir, with cgo on or off. */
function goBuild(source: string, name: string, cgo: boolean): string {
  const out = join(dir, name);
  compile("go", ["build", "-o", out, fixture(source)], {
    ...process.env,
    CGO_ENABLED: cgo ? "1" : "0",
    GOCACHE: process.env.GOCACHE ?? join(process.env.HOME ?? dir, ".cache", "go-build"),
    GO111MODULE: "off",
  });
  return out;
}

const programs: { name: string; build: () => string; skip?: string }[] = [
  {
    name: "musl-static C",
    skip: have("musl-gcc") ? undefined : "musl-gcc not installed",
    build: () => {
      const out = join(dir, "readfile-musl");
      compile("musl-gcc", ["-static", "-O2", "-o", out, fixture("readfile.c")]);
      return out;
    },
  },
  {
    name: "Go CGO_ENABLED=0",
    skip: have("go") ? undefined : "go not installed",
    build: () => goBuild("readfile.go", "readfile-go", false),
  },
  {
    name: "Go with cgo (dynamically linked, raw syscalls)",
    skip: have("go") && have("gcc") ? undefined : "go or gcc not installed",
    build: () => goBuild("readfile-cgo.go", "readfile-cgo", true),
  },
];

for (const p of programs) {
  describe(p.name, () => {
    if (p.skip) {
      skipBecause(p.name, p.skip);
      return;
    }
    const bin = p.build();
    test.each(["auto", "seccomp"])("its reads are traced (--backend %s)", (backend) => {
      const r = traceRun([bin, data], ["--backend", backend]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("static data\n");
      expect(r.modes.get(data)).toEqual(["read"]);
      expect(r.modes.get(bin)).toContain("exec");
      expect(r.trace.backendsUsed).toContain("seccomp");
      expect(r.trace.complete).toBe(true);
    });

    test("started by a dynamic parent in auto mode (the tree's filter covers it)", () => {
      const r = traceRun(["sh", "-c", `${bin} ${data} && cat ${data}`], ["--backend", "auto"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("static data\nstatic data\n");
      expect(r.modes.get(data)).toEqual(["read"]);
      expect(r.trace.backendsUsed).toEqual(["preload", "seccomp"]);
      expect(r.trace.complete).toBe(true);
    });

    test("preload alone cannot see it, and says so", () => {
      const r = traceRun([bin, data], ["--backend", "preload"]);
      expect(r.code).toBe(0);
      expect(r.trace.complete).toBe(false);
      expect(r.stderr).toContain("trace incomplete");
    });
  });
}
