/**
 * Whether a package a bundle leaves external is the same on both sides (docs/unchanged.md):
 * resolved as node resolves it from each bundle's folder, then the same folder, or folders
 * whose files are the same.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { packageDir } from "../../runner/package-entry.ts";

/** A hash of every file in a package's folder (its own node_modules left out), memoized per folder. */
const packageHashes = new Map<string, string>();
export function packageHash(dir: string): string {
  let hash = packageHashes.get(dir);
  if (hash !== undefined) return hash;
  const digest = createHash("sha256");
  const walk = (at: string, rel: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (entry.name === "node_modules") continue;
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(at, entry.name), path);
      else if (entry.isFile())
        digest
          .update(`${path}\0`)
          .update(readFileSync(join(at, entry.name)))
          .update("\0");
    }
  };
  walk(dir, "");
  hash = digest.digest("hex");
  packageHashes.set(dir, hash);
  return hash;
}

/**
 * The same package on both sides: the same folder (base links head's node_modules by
 * default), or, installed per side, folders whose files are the same.
 */
export function samePackageOnBothSides(baseBundle: string, headBundle: string) {
  return (specifier: string): boolean => {
    const a = packageDir(join(baseBundle, ".."), specifier);
    const b = packageDir(join(headBundle, ".."), specifier);
    if (a === b) return true;
    if (!a || !b) return false;
    return packageHash(a) === packageHash(b);
  };
}
