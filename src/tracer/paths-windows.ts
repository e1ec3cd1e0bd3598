/**
 * Windows paths as the hook DLL records them (native/win/record.c): `C:\dir\file`,
 * `\\server\share\file`, `\\.\device`, or an NT name such as `\Device\...`, each possibly
 * relative to a base directory. Lexical like paths.ts: `.`, `..` and repeated separators go,
 * nothing is resolved on disk. Windows compares names case-insensitively: `windowsKey` is
 * what two spellings of one path share.
 */

const DRIVE = /^([A-Za-z]):(?:\\|$)/;

function isAbsolute(p: string): boolean {
  return DRIVE.test(p) || p.startsWith("\\");
}

/** The root a path keeps whatever `..` says, and the rest. */
function splitRoot(full: string): { root: string; rest: string; sep: boolean } {
  const drive = DRIVE.exec(full);
  if (drive) return { root: `${drive[1]!.toUpperCase()}:\\`, rest: full.slice(drive[0].length), sep: false };
  if (full.startsWith("\\\\")) {
    // \\server\share or \\.\device: the first two names are the root.
    const parts = full.slice(2).split("\\");
    return { root: `\\\\${parts.slice(0, 2).join("\\")}`, rest: parts.slice(2).join("\\"), sep: true };
  }
  if (full.startsWith("\\")) return { root: "\\", rest: full.slice(1), sep: false };
  return { root: "", rest: full, sep: false };
}

/** `path` joined onto `base` when relative, then normalized. Forward slashes count as separators. */
export function normalizeWindows(path: string, base = ""): string {
  const p = path.replaceAll("/", "\\");
  const full = isAbsolute(p) || !base ? p : `${base.replaceAll("/", "\\")}\\${p}`;
  const { root, rest, sep } = splitRoot(full);
  const names: string[] = [];
  for (const name of rest.split("\\")) {
    if (name === "" || name === ".") continue;
    if (name === "..") names.pop();
    else names.push(name);
  }
  if (names.length === 0) return root || ".";
  return `${root}${sep ? "\\" : ""}${names.join("\\")}`;
}

/** canonicalize() for Windows records: bytes in, bytes out (UTF-8). */
export function canonicalizeWindows(base: Buffer, path: Buffer): Buffer {
  return Buffer.from(normalizeWindows(path.toString("utf8"), base.toString("utf8")), "utf8");
}

/** One key per file: Windows file names are case-insensitive. */
export function windowsKey(path: string): string {
  return path.toLowerCase();
}
