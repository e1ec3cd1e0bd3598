import { createHash } from "node:crypto";

/** `configScale.bench.ts` → `configScale`; a named suite file `test/bench/index.ts` → `index`. */
export function benchBasename(file: string): string {
  const name = file.split("/").pop()!;
  return name.replace(/\.bench\.(ts|mts|js|mjs)$/, "").replace(/\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/, "") || name;
}

/**
 * The row name: `<file basename>-<8 hex of sha256(repo-relative path)>: <label>`. The hash
 * keeps two `index.bench.ts` files in different folders apart without printing long paths.
 */
export function rowId(file: string, label: string): string {
  const hash = createHash("sha256").update(file).digest("hex").slice(0, 8);
  return `${benchBasename(file)}-${hash}: ${label}`;
}
