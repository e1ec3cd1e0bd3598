/** From raw records to deduplicated accesses with modes. */
import { existsSync } from "node:fs";
import { ACCESS_MODES, type Access, type AccessMode } from "./types.ts";
import { OP, RESULT_PENDING, RESULT_UNKNOWN, RF_TRUNCATED, RF_UNREADABLE, type RawRecord } from "./log.ts";
import { canonicalize, displayPath } from "./paths.ts";

const ENOENT = 2;
const ENOTDIR = 20;
/** The largest errno: results above 0 and up to this are a call's failure. */
const ERRNO_MAX = 4095;
const O_ACCMODE = 3;
const O_RDONLY = 0;
const O_WRONLY = 1;
const O_RDWR = 2;
const O_CREAT = 0x40;
const O_TRUNC = 0x200;
const O_APPEND = 0x400;
const O_DIRECTORY = 0x10000;
const O_PATH = 0x200000;

/** The modes one record implies, before taking its outcome into account. */
export function intendedModes(op: number, arg: number): AccessMode[] {
  switch (op) {
    case OP.OPEN: {
      if (arg & O_PATH) return ["stat"];
      const acc = arg & O_ACCMODE;
      const modes: AccessMode[] = [];
      if (acc === O_RDONLY || acc === O_RDWR) modes.push("read");
      if (acc === O_WRONLY || acc === O_RDWR || arg & (O_CREAT | O_TRUNC | O_APPEND)) modes.push("write");
      // A directory opened as such is looked up; a listing is its getdents (READDIR).
      if (arg & O_DIRECTORY && !(arg & (O_CREAT | O_TRUNC)) && acc !== O_WRONLY) return ["stat"];
      return modes;
    }
    case OP.STAT:
    case OP.ACCESS:
    case OP.READLINK:
    case OP.CHDIR:
      return ["stat"];
    case OP.OPENDIR: // an O_DIRECTORY open (a lookup), then its listing
      return ["readdir", "stat"];
    case OP.READDIR:
      return ["readdir"];
    case OP.EXEC:
    case OP.PROC:
      return ["exec"];
    case OP.RENAME_FROM:
    case OP.RENAME_TO:
    case OP.UNLINK:
    case OP.MKDIR:
    case OP.RMDIR:
    case OP.TRUNCATE:
    case OP.LINK:
      return ["write"];
    default:
      return [];
  }
}

/**
 * The modes a record stands for once its outcome is known. A call that failed read, wrote,
 * listed and ran nothing: on a missing path it is a probe ("missing"), otherwise the path was
 * only looked up ("stat": an mkdir of an existing folder, an exec of a directory).
 */
export function outcomeModes(intended: AccessMode[], result: number): AccessMode[] {
  if (result <= 0 || result > ERRNO_MAX) return intended;
  return result === ENOENT || result === ENOTDIR ? ["missing"] : ["stat"];
}

export interface CollectOptions {
  /** Absolute paths to leave out (the tracer's own files). */
  exclude?: ReadonlySet<string>;
  /**
   * For records whose outcome was not observed (seccomp continues calls in the kernel): call
   * the path missing if it does not exist now. Default true.
   */
  probeUnknown?: boolean;
}

interface Entry {
  access: Access;
  modes: Set<AccessMode>;
  /** When the pid in `access` touched the path. */
  tsc: bigint;
}

/** Deduplicates records per absolute path; the first pid to touch a path (by time stamp) wins. */
export function collectAccesses(records: Iterable<RawRecord>, options: CollectOptions = {}): Access[] {
  const byPath = new Map<string, Entry>();
  const existsCache = new Map<string, boolean>();
  const probe = options.probeUnknown ?? true;
  for (const rec of records) {
    if (rec.rflags & RF_UNREADABLE || rec.path.length === 0) continue;
    const abs = canonicalize(rec.base, rec.path);
    const key = abs.toString("latin1");
    const shown = displayPath(abs);
    if (options.exclude?.has(shown.path)) continue;
    const intended = intendedModes(rec.op, rec.arg);
    if (intended.length === 0) continue;
    let modes = outcomeModes(intended, rec.result);
    if (probe && (rec.result === RESULT_UNKNOWN || rec.result === RESULT_PENDING) && !modes.includes("write")) {
      let exists = existsCache.get(key);
      if (exists === undefined) existsCache.set(key, (exists = existsSync(abs)));
      if (!exists) modes = ["missing"];
    }
    let entry = byPath.get(key);
    if (!entry) {
      entry = { access: { path: shown.path, modes: [], pid: rec.pid }, modes: new Set(), tsc: rec.tsc };
      if (shown.hex) entry.access.pathHex = shown.hex;
      byPath.set(key, entry);
    } else if (rec.tsc < entry.tsc) {
      entry.tsc = rec.tsc;
      entry.access.pid = rec.pid;
    }
    for (const m of modes) entry.modes.add(m);
    if (rec.rflags & RF_TRUNCATED) entry.access.truncated = true;
  }
  const out: Access[] = [];
  for (const { access, modes } of byPath.values()) {
    // A directory cannot be read(2): its read-only opens were the way to a listing.
    if (modes.has("readdir")) modes.delete("read");
    access.modes = ACCESS_MODES.filter((m) => modes.has(m));
    out.push(access);
  }
  return out;
}
