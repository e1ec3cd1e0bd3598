/**
 * Reader of the record log written by native/unix/logfile.c and native/win/logfile.c (format in native/common/log.h). Torn frames
 * (a writer killed mid-record) are skipped; nothing here throws on bad record contents.
 */
import { readSync, openSync, closeSync, fstatSync } from "node:fs";

export const LOG_MAGIC = 0x00314f4c4e525458n;
export const HEADER_SIZE = 4096;
/** XBENCH_LOG_VERSION in native/common/log.h. */
export const LOG_VERSION = 2;
const FRAME_COMMIT = 0x31434258;
/** sizeof(struct xb_rec) */
export const REC_SIZE = 32;
const REC_MAX = 64 * 1024;

export const OP = {
  OPEN: 1,
  STAT: 2,
  ACCESS: 3,
  READLINK: 4,
  OPENDIR: 5,
  EXEC: 6,
  RENAME_FROM: 7,
  RENAME_TO: 8,
  UNLINK: 9,
  MKDIR: 10,
  RMDIR: 11,
  CHDIR: 12,
  PROC: 13,
  TRUNCATE: 14,
  LINK: 15,
  READDIR: 16,
  /** mknod, mkfifo, bind of an AF_UNIX path socket: a new node. */
  MKNOD: 17,
  /** chmod, chown, utime families: a change of the path's metadata. */
  SETATTR: 18,
} as const;

export const SRC_PRELOAD = 1;
export const SRC_SECCOMP = 2;
/** The Windows hook DLL (native/win/). */
export const SRC_DLL = 3;
/** The call had not returned when the log was read (or an exec succeeded). */
export const RESULT_PENDING = -0x80000000;
/** Seccomp continued the call in the kernel; its result was never seen. */
export const RESULT_UNKNOWN = -0x7fffffff;

export const RF_TRUNCATED = 0x1;
export const RF_UNREADABLE = 0x2;

export const FLAG = {
  USED_PRELOAD: 0x1,
  USED_SECCOMP: 0x2,
  USED_DLL: 0x4,
  SECCOMP_REFUSED: 0x10,
  STATIC_UNTRACED: 0x20,
  FOREIGN_ARCH: 0x40,
  UNREADABLE: 0x80,
  LAUNCHER_ERROR: 0x100,
  SHIM_DROPPED: 0x200,
  SIP_STRIPPED: 0x400,
  CHILD_UNTRACED: 0x800,
  PATH_UNRESOLVED: 0x1000,
  IO_URING_UNTRACED: 0x2000,
  SETUID_UNPRIVILEGED: 0x4000,
  RAW_UNTRACED: 0x8000,
  SPAWN_UNREAD: 0x20000,
  /** The command's own process ended while descendants ran on (--detach-ok). */
  DETACHED: 0x40000,
  CHROOT_UNTRACED: 0x80000,
  HANDLE_UNNAMED: 0x100000,
  FIFO_UNTOLD: 0x200000,
  NAMESPACE_UNTRACED: 0x400000,
  ROOT_UNNAMED: 0x800000,
  INCOMPLETE: 0xfefff0,
  /** The command ran differently from an untraced run; what ran was traced (not INCOMPLETE). */
  CHANGED_IO_URING: 0x10000,
} as const;

export interface LogHeader {
  capacity: number;
  tail: number;
  dropped: number;
  flags: number;
  seccompErrno: number;
  supervisorMaxRssKb: number;
  notifications: number;
}

/** One committed record, paths as raw bytes. */
export interface RawRecord {
  op: number;
  src: number;
  pid: number;
  arg: number;
  result: number;
  rflags: number;
  /** Time stamp counter at recording: orders records written into different chunks. */
  tsc: bigint;
  /** The directory a relative path is relative to (cwd or dirfd), empty if none. */
  base: Buffer;
  path: Buffer;
}

export interface ParsedLog {
  header: LogHeader;
  records: RawRecord[];
  /** Frames skipped because their commit word was missing. */
  torn: number;
}

function readHeader(buf: Buffer): LogHeader {
  if (buf.length < 80 || buf.readBigUInt64LE(0) !== LOG_MAGIC) throw new Error("not an xbench trace log");
  const version = buf.readUInt32LE(8);
  if (version !== LOG_VERSION) throw new Error(`trace log version ${version}, this xbench reads version ${LOG_VERSION}`);
  return {
    capacity: Number(buf.readBigUInt64LE(16)),
    tail: Number(buf.readBigUInt64LE(24)),
    dropped: Number(buf.readBigUInt64LE(32)),
    flags: Number(buf.readBigUInt64LE(40)),
    seccompErrno: buf.readInt32LE(48),
    supervisorMaxRssKb: Number(buf.readBigUInt64LE(56)),
    notifications: Number(buf.readBigUInt64LE(64)),
  };
}

/**
 * Calls `visit(at, len)` for each committed frame of `data[0, end)` and returns where it
 * stopped and how many torn frames it skipped. With `final` false it stops before a frame that
 * runs past `end` (the next chunk completes it); with `final` true that is a torn frame.
 */
const ZEROS = Buffer.alloc(512);

/**
 * The first 8-aligned offset from `off` whose word is not zero (or `end`): a short trace is
 * mostly chunk padding, and comparing 512 bytes natively beats 64 steps of cold code.
 */
function skipZeros(data: Buffer, off: number, end: number): number {
  while (off + ZEROS.length <= end && data.compare(ZEROS, 0, ZEROS.length, off, off + ZEROS.length) === 0) off += ZEROS.length;
  while (off + 8 <= end && data.readUInt32LE(off) === 0 && data.readUInt32LE(off + 4) === 0) off += 8;
  return off;
}

export function scanFrames(
  data: Buffer,
  end: number,
  final: boolean,
  visit: (at: number, len: number) => void,
): { next: number; torn: number } {
  let torn = 0;
  let off = 0;
  const fits = (len: number, at: number) => len >= REC_SIZE && len <= REC_MAX && at + 8 + len <= end;
  const plausible = (len: number) => len >= REC_SIZE && len <= REC_MAX;
  while (off + 8 <= end) {
    const commit = data.readUInt32LE(off);
    const len = data.readUInt32LE(off + 4);
    if (!final && (commit === FRAME_COMMIT || commit === 0) && plausible(len) && off + 8 + len > end) break;
    if (commit === FRAME_COMMIT && fits(len, off)) {
      const r = off + 8;
      if (REC_SIZE + data.readUInt16LE(r + 2) + data.readUInt32LE(r + 16) === len) visit(r, len);
      else torn++;
      off += (8 + len + 7) & ~7;
      continue;
    }
    if (commit === 0 && len === 0) {
      off = skipZeros(data, off + 8, end); // padding: the unused end of a thread's chunk
      continue;
    }
    torn++;
    if (commit === 0 && fits(len, off)) {
      off += (8 + len + 7) & ~7; // written length, payload interrupted
      continue;
    }
    // Resynchronize: the next 8-aligned committed frame with a consistent length.
    off += 8;
    while (off + 8 <= end) {
      const c = data.readUInt32LE(off);
      const l = data.readUInt32LE(off + 4);
      if (c === FRAME_COMMIT && (fits(l, off) || (!final && plausible(l)))) break;
      off += 8;
    }
  }
  return { next: off, torn };
}

/** The record at `at` as plain data (paths copied out of `data`). */
export function recordAt(data: Buffer, at: number, len: number): RawRecord {
  const baseLen = data.readUInt16LE(at + 2);
  return {
    op: data[at]!,
    src: data[at + 1]!,
    pid: data.readUInt32LE(at + 4),
    arg: data.readUInt32LE(at + 8),
    result: data.readInt32LE(at + 12),
    rflags: data.readUInt32LE(at + 20),
    tsc: data.readBigUInt64LE(at + 24),
    base: Buffer.from(data.subarray(at + REC_SIZE, at + REC_SIZE + baseLen)),
    path: Buffer.from(data.subarray(at + REC_SIZE + baseLen, at + len)),
  };
}

/** Parses frames in `data` (the bytes from HEADER_SIZE up to the tail). */
export function parseFrames(data: Buffer): { records: RawRecord[]; torn: number } {
  const records: RawRecord[] = [];
  const { torn } = scanFrames(data, data.length, true, (at, len) => records.push(recordAt(data, at, len)));
  return { records, torn };
}

/** Bytes read from the log at a time: frames are streamed, never held whole. */
const CHUNK = 4 << 20;

/**
 * Streams the frames of a log file (only up to its tail: the file is sparse and large) to
 * `visit(data, at, len)`; `data` is reused between chunks, so visitors copy what they keep.
 */
export function scanLogFile(
  file: string,
  visit: (data: Buffer, at: number, len: number) => void,
  chunkSize = CHUNK,
): { header: LogHeader; torn: number } {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(HEADER_SIZE);
    const n = readSync(fd, head, 0, HEADER_SIZE, 0);
    const header = readHeader(head.subarray(0, n));
    const tail = Math.min(header.tail, header.capacity, fstatSync(fd).size);
    // Sized to the log when it is small: zeroing a full chunk costs more than reading a short trace.
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(Math.max(chunkSize, REC_MAX + 16), tail - HEADER_SIZE)));
    let pos = HEADER_SIZE; // file offset of buf[0]
    let have = 0; // bytes valid in buf
    let torn = 0;
    for (;;) {
      const want = Math.min(buf.length - have, tail - (pos + have));
      let got = 0;
      while (got < want) {
        const k = readSync(fd, buf, have + got, want - got, pos + have + got);
        if (k <= 0) break;
        got += k;
      }
      have += got;
      const final = pos + have >= tail || got < want;
      const scanned = scanFrames(buf, have, final, (at, len) => visit(buf, at, len));
      torn += scanned.torn;
      if (final) break;
      buf.copy(buf, 0, scanned.next, have); // the frame that runs into the next chunk
      pos += scanned.next;
      have -= scanned.next;
    }
    return { header, torn };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `file` begins with a trace log's magic: the launcher got as far as creating the log
 * and writing its header. When it did not, the tracer never started; when it did, a failure to
 * read the log is the reader's.
 */
export function hasLogHeader(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return false; // no log: the launcher died before creating it
  }
  try {
    const magic = Buffer.alloc(8);
    return readSync(fd, magic, 0, 8, 0) === 8 && magic.readBigUInt64LE(0) === LOG_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole log file into records (tests and tools; trace() streams with scanLogFile). */
export function readLogFile(file: string): ParsedLog {
  const records: RawRecord[] = [];
  const { header, torn } = scanLogFile(file, (data, at, len) => records.push(recordAt(data, at, len)));
  return { header, records, torn };
}
