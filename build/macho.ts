/**
 * A small reader of 64-bit little-endian Mach-O files: enough to check, on a machine that cannot
 * run them, what the macOS helpers were linked as (build/native-darwin.ts after each link,
 * test/integration/macos-helpers.test.ts in depth). Pure: a Buffer in, plain data out; throws on
 * anything it does not understand rather than guessing.
 *
 * Reads the header, segments and sections, linked dylibs, the symbol table, the dyld-info
 * rebase and bind opcode streams (what zig's linker writes; chained fixups are noted, not
 * read, and interposeEntries refuses them), the `__DATA,__interpose` table, the oldest macOS
 * version (LC_BUILD_VERSION) and the code signature's CodeDirectory flags.
 */

export const MH_MAGIC_64 = 0xfeedfacf;
export const CPU_TYPE = { x86_64: 0x01000007, arm64: 0x0100000c } as const;
export const MH_EXECUTE = 2;
export const MH_DYLIB = 6;

const LC = {
  SYMTAB: 0x2,
  LOAD_DYLIB: 0xc,
  SEGMENT_64: 0x19,
  CODE_SIGNATURE: 0x1d,
  DYLD_INFO: 0x22,
  DYLD_INFO_ONLY: 0x80000022, // | LC_REQ_DYLD (written out: `|` would make it a negative int32)
  DYLD_CHAINED_FIXUPS: 0x80000034,
  BUILD_VERSION: 0x32,
} as const;
/** CodeDirectory flags: ad-hoc signed (no certificate). */
export const CS_ADHOC = 0x2;

export interface Section {
  segname: string;
  sectname: string;
  addr: bigint;
  size: bigint;
  offset: number;
}

export interface Segment {
  name: string;
  vmaddr: bigint;
  vmsize: bigint;
  fileoff: bigint;
  sections: Section[];
}

export interface MachSymbol {
  name: string;
  /** n_type without the stab bits: N_UNDF 0, N_SECT 0xe; `external` is N_EXT. */
  kind: number;
  external: boolean;
  sect: number;
  value: bigint;
  /** For undefined symbols: the install name of the dylib it comes from (two-level namespace). */
  dylib?: string;
}

export interface Bind {
  address: bigint;
  symbol: string;
  /** Install name of the dylib, or `self`/`main`/`flat` for the special ordinals. */
  dylib: string;
}

export interface MachO {
  cpuType: number;
  fileType: number;
  flags: number;
  commands: number[];
  segments: Segment[];
  dylibs: string[];
  symbols: MachSymbol[];
  rebases: bigint[];
  binds: Bind[];
  /** CodeDirectory flags of the embedded signature; undefined when there is none. */
  codeSignatureFlags?: number;
  /** LC_BUILD_VERSION's oldest OS version, as "11.0.0"; undefined without one. */
  minOs?: string;
  /** Fixups are chained (newer linkers): rebases and binds are then not read (left empty). */
  chainedFixups: boolean;
}

function cstring(buf: Buffer, at: number, max: number): string {
  const end = buf.indexOf(0, at);
  return buf.toString("latin1", at, end < 0 || end > at + max ? at + max : end);
}

/** A cursor over an opcode stream. */
class Stream {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}
  get done(): boolean {
    return this.pos >= this.end;
  }
  byte(): number {
    if (this.pos >= this.end) throw new Error("Mach-O: opcode stream runs past its end");
    return this.buf[this.pos++]!;
  }
  uleb(): bigint {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if (!(b & 0x80)) return v;
    }
  }
  sleb(): bigint {
    let v = 0n;
    let shift = 0n;
    let b: number;
    do {
      b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    return b & 0x40 ? v - (1n << shift) : v;
  }
  cstr(): string {
    const end = this.buf.indexOf(0, this.pos);
    if (end < 0 || end >= this.end) throw new Error("Mach-O: unterminated symbol name in opcode stream");
    const s = this.buf.toString("latin1", this.pos, end);
    this.pos = end + 1;
    return s;
  }
}

/** Offsets wrap at 64 bits: linkers step backwards by adding a huge ULEB. */
const add = (a: bigint, b: bigint) => BigInt.asUintN(64, a + b);

function segmentAddress(segments: Segment[], index: number, offset: bigint): bigint {
  const seg = segments[index];
  if (!seg) throw new Error(`Mach-O: opcode names segment ${index}, which does not exist`);
  return seg.vmaddr + offset;
}

/** The addresses dyld slides (REBASE_OPCODE_*), pointer-sized entries. */
export function parseRebases(buf: Buffer, off: number, size: number, segments: Segment[]): bigint[] {
  const s = new Stream(buf, off, off + size);
  const out: bigint[] = [];
  let seg = 0;
  let offset = 0n;
  while (!s.done) {
    const b = s.byte();
    const op = b & 0xf0;
    const imm = b & 0x0f;
    if (op === 0x00) break; // DONE
    if (op === 0x10) continue; // SET_TYPE_IMM
    if (op === 0x20) {
      seg = imm;
      offset = s.uleb();
    } else if (op === 0x30) offset = add(offset, s.uleb());
    else if (op === 0x40) offset = add(offset, BigInt(imm * 8));
    else if (op === 0x50 || op === 0x60) {
      const times = op === 0x50 ? imm : Number(s.uleb());
      for (let i = 0; i < times; i++, offset += 8n) out.push(segmentAddress(segments, seg, offset));
    } else if (op === 0x70) {
      out.push(segmentAddress(segments, seg, offset));
      offset = add(offset, 8n + s.uleb());
    } else if (op === 0x80) {
      const times = Number(s.uleb());
      const skip = s.uleb();
      for (let i = 0; i < times; i++, offset = add(offset, 8n + skip)) out.push(segmentAddress(segments, seg, offset));
    } else throw new Error(`Mach-O: unknown rebase opcode 0x${b.toString(16)}`);
  }
  return out;
}

/** The non-lazy binds (BIND_OPCODE_*): which pointer gets which imported symbol. */
export function parseBinds(buf: Buffer, off: number, size: number, segments: Segment[], dylibs: string[]): Bind[] {
  const s = new Stream(buf, off, off + size);
  const out: Bind[] = [];
  let seg = 0;
  let offset = 0n;
  let ordinal = 0;
  let symbol = "";
  const dylibOf = (n: number) => (n === 0 ? "self" : n === -1 ? "main" : n === -2 ? "flat" : (dylibs[n - 1] ?? `ordinal ${n}`));
  const bind = () => out.push({ address: segmentAddress(segments, seg, offset), symbol, dylib: dylibOf(ordinal) });
  while (!s.done) {
    const b = s.byte();
    const op = b & 0xf0;
    const imm = b & 0x0f;
    if (op === 0x00) break; // DONE
    if (op === 0x10) ordinal = imm;
    else if (op === 0x20) ordinal = Number(s.uleb());
    else if (op === 0x30)
      ordinal = imm === 0 ? 0 : imm | -16; // sign-extended special ordinal
    else if (op === 0x40) symbol = s.cstr();
    else if (op === 0x50)
      continue; // SET_TYPE_IMM
    else if (op === 0x60)
      s.sleb(); // addend: none expected here, ignored
    else if (op === 0x70) {
      seg = imm;
      offset = s.uleb();
    } else if (op === 0x80) offset = add(offset, s.uleb());
    else if (op === 0x90) {
      bind();
      offset += 8n;
    } else if (op === 0xa0) {
      bind();
      offset = add(offset, 8n + s.uleb());
    } else if (op === 0xb0) {
      bind();
      offset = add(offset, 8n + BigInt(imm * 8));
    } else if (op === 0xc0) {
      const times = Number(s.uleb());
      const skip = s.uleb();
      for (let i = 0; i < times; i++, offset = add(offset, 8n + skip)) bind();
    } else throw new Error(`Mach-O: unsupported bind opcode 0x${b.toString(16)}`);
  }
  return out;
}

/** The CodeDirectory flags of an embedded signature (SuperBlob 0xfade0cc0, big-endian). */
function codeDirectoryFlags(buf: Buffer, off: number, size: number): number {
  if (off + 12 > buf.length || buf.readUInt32BE(off) !== 0xfade0cc0) throw new Error("Mach-O: code signature is not an embedded signature");
  const count = buf.readUInt32BE(off + 8);
  for (let i = 0; i < count; i++) {
    const blob = off + buf.readUInt32BE(off + 12 + i * 8 + 4);
    if (blob + 16 <= off + size && buf.readUInt32BE(blob) === 0xfade0c02) return buf.readUInt32BE(blob + 12);
  }
  throw new Error("Mach-O: code signature has no CodeDirectory");
}

export function parseMachO(buf: Buffer): MachO {
  if (buf.length < 32 || buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit little-endian Mach-O file");
  const m: MachO = {
    cpuType: buf.readUInt32LE(4),
    fileType: buf.readUInt32LE(12),
    flags: buf.readUInt32LE(24),
    commands: [],
    segments: [],
    dylibs: [],
    symbols: [],
    rebases: [],
    binds: [],
    chainedFixups: false,
  };
  const ncmds = buf.readUInt32LE(16);
  let symtab: { symoff: number; nsyms: number; stroff: number; strsize: number } | undefined;
  let dyldInfo: { rebaseOff: number; rebaseSize: number; bindOff: number; bindSize: number } | undefined;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const size = buf.readUInt32LE(at + 4);
    if (size < 8 || at + size > buf.length) throw new Error(`Mach-O: load command ${i} is malformed`);
    m.commands.push(cmd);
    if (cmd === LC.SEGMENT_64) {
      const seg: Segment = {
        name: cstring(buf, at + 8, 16),
        vmaddr: buf.readBigUInt64LE(at + 24),
        vmsize: buf.readBigUInt64LE(at + 32),
        fileoff: buf.readBigUInt64LE(at + 40),
        sections: [],
      };
      const nsects = buf.readUInt32LE(at + 64);
      for (let j = 0; j < nsects; j++) {
        const s = at + 72 + j * 80;
        seg.sections.push({
          sectname: cstring(buf, s, 16),
          segname: cstring(buf, s + 16, 16),
          addr: buf.readBigUInt64LE(s + 32),
          size: buf.readBigUInt64LE(s + 40),
          offset: buf.readUInt32LE(s + 48),
        });
      }
      m.segments.push(seg);
    } else if (cmd === LC.LOAD_DYLIB) {
      m.dylibs.push(cstring(buf, at + buf.readUInt32LE(at + 8), size));
    } else if (cmd === LC.SYMTAB) {
      symtab = {
        symoff: buf.readUInt32LE(at + 8),
        nsyms: buf.readUInt32LE(at + 12),
        stroff: buf.readUInt32LE(at + 16),
        strsize: buf.readUInt32LE(at + 20),
      };
    } else if (cmd === LC.DYLD_INFO || cmd === LC.DYLD_INFO_ONLY) {
      dyldInfo = {
        rebaseOff: buf.readUInt32LE(at + 8),
        rebaseSize: buf.readUInt32LE(at + 12),
        bindOff: buf.readUInt32LE(at + 16),
        bindSize: buf.readUInt32LE(at + 20),
      };
    } else if (cmd === LC.DYLD_CHAINED_FIXUPS) {
      m.chainedFixups = true;
    } else if (cmd === LC.BUILD_VERSION) {
      const v = buf.readUInt32LE(at + 12); // xxxx.yy.zz in nibbles
      m.minOs = `${v >>> 16}.${(v >> 8) & 0xff}.${v & 0xff}`;
    } else if (cmd === LC.CODE_SIGNATURE) {
      m.codeSignatureFlags = codeDirectoryFlags(buf, buf.readUInt32LE(at + 8), buf.readUInt32LE(at + 12));
    }
    at += size;
  }
  if (symtab) {
    for (let i = 0; i < symtab.nsyms; i++) {
      const n = symtab.symoff + i * 16;
      const type = buf[n + 4]!;
      if (type & 0xe0) continue; // debugger (stab) entries
      const desc = buf.readUInt16LE(n + 6);
      const sym: MachSymbol = {
        name: cstring(buf, symtab.stroff + buf.readUInt32LE(n), symtab.strsize),
        kind: type & 0x0e,
        external: (type & 0x01) !== 0,
        sect: buf[n + 5]!,
        value: buf.readBigUInt64LE(n + 8),
      };
      const ordinal = (desc >> 8) & 0xff;
      if (sym.kind === 0 && ordinal > 0 && ordinal <= m.dylibs.length) sym.dylib = m.dylibs[ordinal - 1];
      m.symbols.push(sym);
    }
  }
  if (dyldInfo) {
    m.rebases = parseRebases(buf, dyldInfo.rebaseOff, dyldInfo.rebaseSize, m.segments);
    m.binds = parseBinds(buf, dyldInfo.bindOff, dyldInfo.bindSize, m.segments, m.dylibs);
  }
  return m;
}

export function findSection(m: MachO, segname: string, sectname: string): Section | undefined {
  return m.segments.flatMap((s) => s.sections).find((s) => s.segname === segname && s.sectname === sectname);
}

/** One `__DATA,__interpose` tuple: the replacement (a local function) and the original (an import). */
export interface InterposeEntry {
  /** The defined symbol at the replacement's address; undefined if none is there. */
  replacement?: string;
  /** Whether dyld slides the replacement pointer (a rebase entry covers it). */
  replacementRebased: boolean;
  /** The imported symbol bound to the original's slot; undefined if nothing is bound there. */
  original?: Bind;
}

export function interposeEntries(buf: Buffer, m: MachO = parseMachO(buf)): InterposeEntry[] {
  const sect = findSection(m, "__DATA", "__interpose");
  if (!sect) return [];
  if (m.chainedFixups) throw new Error("Mach-O: chained fixups are not read by this parser (the linker changed its output)");
  if (sect.size % 16n !== 0n) throw new Error("Mach-O: __interpose is not a whole number of (replacement, original) pairs");
  const defined = new Map<bigint, string>();
  for (const s of m.symbols) if (s.kind === 0x0e && !defined.has(s.value)) defined.set(s.value, s.name);
  const rebased = new Set(m.rebases);
  const bound = new Map(m.binds.map((b) => [b.address, b]));
  const out: InterposeEntry[] = [];
  for (let i = 0n; i < sect.size / 16n; i++) {
    const slot = sect.addr + i * 16n;
    const value = buf.readBigUInt64LE(sect.offset + Number(i * 16n));
    out.push({ replacement: defined.get(value), replacementRebased: rebased.has(slot), original: bound.get(slot + 8n) });
  }
  return out;
}

/** One architecture's file inside a universal ("fat") file. */
export interface FatSlice {
  cpuType: number;
  cpuSubtype: number;
  offset: number;
  size: number;
}

const FAT_MAGIC = 0xcafebabe;
/** Slices start on 16 KiB boundaries (arm64's page size; x86-64's 4 KiB divides it). */
const FAT_ALIGN_LOG2 = 14;

/** The slices of a universal file (big-endian fat_header + fat_arch), or undefined if `buf` is not one. */
export function fatSlices(buf: Buffer): FatSlice[] | undefined {
  if (buf.length < 8 || buf.readUInt32BE(0) !== FAT_MAGIC) return undefined;
  const n = buf.readUInt32BE(4);
  if (8 + n * 20 > buf.length) throw new Error("Mach-O: fat header runs past the file");
  return Array.from({ length: n }, (_, i) => {
    const at = 8 + i * 20;
    const slice = {
      cpuType: buf.readUInt32BE(at),
      cpuSubtype: buf.readUInt32BE(at + 4),
      offset: buf.readUInt32BE(at + 8),
      size: buf.readUInt32BE(at + 12),
    };
    if (slice.offset + slice.size > buf.length) throw new Error(`Mach-O: fat slice ${i} runs past the file`);
    return slice;
  });
}

/** A slice's bytes (a thin Mach-O file). */
export function sliceBytes(buf: Buffer, slice: FatSlice): Buffer {
  return buf.subarray(slice.offset, slice.offset + slice.size);
}

/**
 * A universal file holding the thin Mach-O files `thin` (what `lipo -create` makes): dyld loads
 * the slice of the process's architecture, so one dylib serves native and Rosetta processes.
 */
export function writeFat(thin: Buffer[]): Buffer {
  const align = 1 << FAT_ALIGN_LOG2;
  const header = Buffer.alloc(8 + thin.length * 20);
  header.writeUInt32BE(FAT_MAGIC, 0);
  header.writeUInt32BE(thin.length, 4);
  const parts: Buffer[] = [header];
  let offset = header.length;
  for (const [i, slice] of thin.entries()) {
    const m = parseMachO(slice);
    const start = Math.ceil(offset / align) * align;
    parts.push(Buffer.alloc(start - offset), slice);
    const at = 8 + i * 20;
    header.writeUInt32BE(m.cpuType, at);
    header.writeUInt32BE(slice.readUInt32LE(8), at + 4);
    header.writeUInt32BE(start, at + 8);
    header.writeUInt32BE(slice.length, at + 12);
    header.writeUInt32BE(FAT_ALIGN_LOG2, at + 16);
    offset = start + slice.length;
  }
  return Buffer.concat(parts);
}
