/**
 * Compare on a project that looks like a router library someone else wrote
 * (test/fixtures/tiny-router): `"sideEffects": false`, a mitata suite at test/bench/index.ts
 * named in package.json, two groups that share benchmark names, a pnpm lockfile. Every
 * benchmark is reported on both sides under a group-qualified name, and a slowdown injected
 * into one of them is found there and only there.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "pathe";
import { compareIn, repoPerTest, rowOf } from "../support/compare.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "tiny-router");

const repoWith = repoPerTest();

/** Every file of a fixture folder, by path relative to it. */
function filesOf(dir: string): Record<string, string> {
  const names = readdirSync(dir, { recursive: true }) as string[];
  return Object.fromEntries(names.filter((n) => statSync(join(dir, n)).isFile()).map((n) => [n, readFileSync(join(dir, n), "utf8")]));
}

/**
 * The change under test, in code only one benchmark (params › lookup) runs: every matched
 * parameter is decoded a second time to reject double encoding, which costs about a third more
 * on that benchmark's requests (three of five carry escapes).
 */
const PARAMS_SLOWER = `/** A path segment as the handler sees it: percent-escapes decoded, plain segments untouched. */
export function decodeParam(segment: string): string {
  if (!segment.includes("%")) return segment;
  const decoded = decodeURIComponent(segment);
  // Reject double encoding: a segment must decode to the same text however often it is decoded.
  if (decodeURIComponent(encodeURIComponent(decoded)) !== decoded) throw new URIError(\`double-encoded: \${segment}\`);
  return decoded;
}
`;

const GROUPED = ["params › lookup", "params › miss", "static › lookup", "static › miss"];

describe("compare on a library's own mitata suite", () => {
  test("every benchmark on both sides, group-qualified; an injected slowdown is slower only there", () => {
    const repo = repoWith(filesOf(FIXTURE));
    repo.write({ "src/params.ts": PARAMS_SLOWER });

    // Holm across the four rows: a chance verdict among the three unchanged ones stays under
    // 5% for the whole table, and they must also stay near zero.
    // 16 rounds: under Holm across four rows a round or two that load turned around still leave a verdict.
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "16", "--holm"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const rows = r.result!.rows;
    expect(rows.map((row) => row.label).sort()).toEqual(GROUPED);
    for (const row of rows) {
      expect(row.id).toMatch(/^index-[0-9a-f]{8}: (static|params) › (lookup|miss)$/);
      expect(row.status).toBe("ok");
      expect(row.base.every((v) => typeof v === "number" && v > 0)).toBe(true);
      expect(row.head.every((v) => typeof v === "number" && v > 0)).toBe(true);
    }
    const slowed = rowOf(r.result, "params › lookup").stats!;
    expect(slowed.verdict).toBe("slower");
    expect(slowed.delta).toBeGreaterThan(0.1);
    // The other rows run code that did not change, from a bundle that did: layout alone can move
    // them by a few tenths of a percent, enough for a verdict now and then,
    // never by anything near the injected change.
    for (const label of GROUPED.filter((l) => l !== "params › lookup")) {
      const same = rowOf(r.result, label).stats!;
      expect(Math.abs(same.delta)).toBeLessThan(0.05);
      expect(same.ci[0]).toBeLessThan(0.1);
    }
    expect(r.stdout).toMatch(/^index\.ts › params › lookup .* slower$/m);
    expect(repo.worktrees()).toHaveLength(1);
  }, 300_000);
});
