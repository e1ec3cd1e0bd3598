/** From raw records to deduplicated accesses with modes. */
import { existsSync } from "node:fs";
import { ACCESS_MODES, type Access, type AccessMode } from "./types.ts";
import { OP, REC_SIZE, RESULT_PENDING, RESULT_UNKNOWN, RF_TRUNCATED, RF_UNREADABLE, type RawRecord } from "./log.ts";
import { cachedRealPath, canonicalize, displayPath } from "./paths.ts";
import { canonicalizeWindows, normalizeWindows, windowsKey } from "./paths-windows.ts";

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
/** O_TMPFILE without the O_DIRECTORY it carries. */
const O_TMPFILE_BIT = 0x400000;

/** The modes one record implies, before taking its outcome into account. */
export function intendedModes(op: number, arg: number): AccessMode[] {
  switch (op) {
    case OP.OPEN: {
      if (arg & O_PATH) return ["stat"];
      // A file without a name made in the folder (O_TMPFILE): nothing in it is read.
      if (arg & O_TMPFILE_BIT) return ["write"];
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
    case OP.OPENDIR: // scandir: an O_DIRECTORY open (a lookup), then its listing
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
    case OP.MKNOD:
    // A metadata change is an output: a build cache keyed on mode or mtime must see it.
    case OP.SETATTR:
      return ["write"];
    default:
      return [];
  }
}

const BIT: Record<AccessMode, number> = { read: 1, write: 2, readdir: 4, stat: 8, exec: 16, missing: 32 };
const maskOf = (modes: readonly AccessMode[]) => modes.reduce((m, x) => m | BIT[x], 0);
const modesOf = (mask: number) => ACCESS_MODES.filter((m) => mask & BIT[m]);

/**
 * The modes a record stands for once its outcome is known. A call that failed read, wrote,
 * listed and ran nothing: on a missing path it is a probe ("missing"), otherwise the path was
 * only looked up ("stat": an mkdir of an existing folder, an exec of a directory).
 */
export function outcomeModes(intended: AccessMode[], result: number): AccessMode[] {
  return modesOf(outcomeMask(maskOf(intended), result));
}

function outcomeMask(intended: number, result: number): number {
  if (result <= 0 || result > ERRNO_MAX) return intended;
  return result === ENOENT || result === ENOTDIR ? BIT.missing : BIT.stat;
}

export interface CollectOptions {
  /** Absolute paths to leave out (the tracer's own files); with `windows`, compared as Windows paths. */
  exclude?: ReadonlySet<string>;
  /** Records of the Windows hook DLL: backslashed paths, compared case-insensitively. */
  windows?: boolean;
  /**
   * For records whose outcome was not observed (seccomp continues calls in the kernel): call
   * the path missing if it does not exist now. Default true.
   */
  probeUnknown?: boolean;
}

/** One distinct (base, path) as recorded, before canonicalization. */
interface Raw {
  base: Buffer;
  path: Buffer;
  /** Modes known from the record alone. */
  sure: number;
  /** Modes that hold if the path exists now, else it is missing (outcome not observed). */
  probe: number;
  pid: number;
  tscHi: number;
  tscLo: number;
  truncated: boolean;
}

/**
 * Deduplicates records into accesses, streaming: records are merged by their raw bytes (base
 * and path) first, so a path seen a million times is canonicalized, decoded and probed once.
 * The first pid to touch a path (by time stamp) wins.
 */
export class AccessCollector {
  private readonly raws = new Map<string, Raw>();
  /**
   * Paths left out because nothing named where they were: a relative path recorded without the
   * folder it was relative to (a process whose cwd was removed). The trace is then incomplete.
   */
  unresolved = 0;
  /** intendedModes as a mask: per op, then per arg for opens (the only op whose arg matters). */
  private readonly byOp: number[] = [];
  private readonly byOpenFlags = new Map<number, number>();
  constructor(private readonly options: CollectOptions = {}) {}

  /** A record in place: the payload at `at` (struct xb_rec, base, path) of `len` bytes. */
  addFrame(data: Buffer, at: number, len: number): void {
    const baseLen = data.readUInt16LE(at + 2);
    const from = at + REC_SIZE;
    if (len === REC_SIZE + baseLen) return; // empty path
    // Keyed by base+path bytes; the base length is checked on a hit (see add).
    const key = data.toString("latin1", from, at + len);
    this.add(
      key,
      data,
      from,
      baseLen,
      at + len,
      data[at]!,
      data.readUInt32LE(at + 8),
      data.readInt32LE(at + 12),
      data.readUInt32LE(at + 20),
      data.readUInt32LE(at + 4),
      data.readUInt32LE(at + 28),
      data.readUInt32LE(at + 24),
    );
  }

  addRecord(rec: RawRecord): void {
    if (rec.path.length === 0) return;
    const bytes = Buffer.concat([rec.base, rec.path]);
    const key = bytes.toString("latin1");
    this.add(
      key,
      bytes,
      0,
      rec.base.length,
      bytes.length,
      rec.op,
      rec.arg,
      rec.result,
      rec.rflags,
      rec.pid,
      Number(rec.tsc >> 32n),
      Number(rec.tsc & 0xffffffffn),
    );
  }

  private add(
    bytesKey: string,
    data: Buffer,
    from: number,
    baseLen: number,
    end: number,
    op: number,
    arg: number,
    result: number,
    rflags: number,
    pid: number,
    tscHi: number,
    tscLo: number,
  ): void {
    if (rflags & RF_UNREADABLE) return;
    let intended = op === OP.OPEN ? this.byOpenFlags.get(arg) : this.byOp[op];
    if (intended === undefined) {
      intended = maskOf(intendedModes(op, arg));
      if (op === OP.OPEN) this.byOpenFlags.set(arg, intended);
      else this.byOp[op] = intended;
    }
    if (intended === 0) return;
    let sure = 0,
      probe = 0;
    const unobserved = result === RESULT_UNKNOWN || result === RESULT_PENDING;
    if (unobserved && !(intended & BIT.write) && (this.options.probeUnknown ?? true)) probe = intended;
    else sure = outcomeMask(intended, result);
    // The same bytes split differently ("/a" + "bc" vs "/ab" + "c") are another entry.
    let key = bytesKey;
    let raw = this.raws.get(key);
    if (raw && raw.base.length !== baseLen) raw = this.raws.get((key = `${baseLen}\0${bytesKey}`));
    if (!raw) {
      const copy = Buffer.from(data.subarray(from, end)); // data is reused by the reader
      raw = { base: copy.subarray(0, baseLen), path: copy.subarray(baseLen), sure: 0, probe: 0, pid, tscHi, tscLo, truncated: false };
      this.raws.set(key, raw);
    } else if (tscHi < raw.tscHi || (tscHi === raw.tscHi && tscLo < raw.tscLo)) {
      raw.tscHi = tscHi;
      raw.tscLo = tscLo;
      raw.pid = pid;
    }
    raw.sure |= sure;
    raw.probe |= probe;
    if (rflags & RF_TRUNCATED) raw.truncated = true;
  }

  /** The accesses, one per absolute path. */
  finish(): Access[] {
    const byPath = new Map<string, { abs: Buffer; mask: number; probe: number; first: Raw; truncated: boolean }>();
    const windows = this.options.windows ?? false;
    const given = this.options.exclude;
    const exclude = windows && given ? new Set([...given].map((p) => windowsKey(normalizeWindows(p)))) : given;
    const real = cachedRealPath();
    for (const raw of this.raws.values()) {
      const abs = windows ? canonicalizeWindows(raw.base, raw.path) : canonicalize(raw.base, raw.path, real);
      const key = windows ? windowsKey(abs.toString("utf8")) : abs.toString("latin1");
      const e = byPath.get(key);
      if (!e) {
        byPath.set(key, { abs, mask: raw.sure, probe: raw.probe, first: raw, truncated: raw.truncated });
        continue;
      }
      e.mask |= raw.sure;
      e.probe |= raw.probe;
      e.truncated ||= raw.truncated;
      if (raw.tscHi < e.first.tscHi || (raw.tscHi === e.first.tscHi && raw.tscLo < e.first.tscLo)) e.first = raw;
    }
    const out: Access[] = [];
    for (const { abs, mask: sure, probe, first, truncated } of byPath.values()) {
      if (!windows && abs[0] !== 0x2f) {
        this.unresolved++;
        continue;
      }
      const shown = displayPath(abs);
      if (exclude?.has(windows ? windowsKey(shown.path) : shown.path)) continue;
      let mask = sure;
      if (probe) mask |= existsSync(abs) ? probe : BIT.missing;
      // A directory cannot be read(2): its read-only opens were the way to a listing.
      if (mask & BIT.readdir) mask &= ~BIT.read;
      const access: Access = { path: shown.path, modes: modesOf(mask), pid: first.pid };
      if (shown.hex) access.pathHex = shown.hex;
      if (truncated) access.truncated = true;
      out.push(access);
    }
    return out;
  }
}

/** Deduplicates records per absolute path (see AccessCollector). */
export function collectAccesses(records: Iterable<RawRecord>, options: CollectOptions = {}): Access[] {
  const collector = new AccessCollector(options);
  for (const rec of records) collector.addRecord(rec);
  return collector.finish();
}
