/**
 * build/macho.ts on small Mach-O files made here byte by byte: what it reads from each load
 * command and opcode stream, and that it refuses what it does not understand.
 */
import { describe, expect, test } from "bun:test";
import {
  CPU_TYPE,
  CS_ADHOC,
  MH_DYLIB,
  fatSlices,
  interposeEntries,
  parseBinds,
  parseMachO,
  parseRebases,
  sliceBytes,
  writeFat,
} from "../../build/macho.ts";

const uleb = (v: bigint): number[] => {
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
};
const str16 = (s: string) => Buffer.concat([Buffer.from(s, "latin1"), Buffer.alloc(16 - s.length)]);

interface Fake {
  /** Section data of __DATA,__interpose (pairs of 8-byte pointers). */
  interpose: bigint[];
  rebase: number[];
  bind: number[];
  signature?: number;
  chained?: boolean;
  cpu?: number;
}

/**
 * A dylib with __TEXT (vmaddr 0), __DATA (vmaddr 0x4000, holding __interpose at 0x4000) and
 * __LINKEDIT (symbols, strings, opcodes, signature), one LC_LOAD_DYLIB for libSystem.
 */
function fakeDylib(f: Fake): Buffer {
  const linkeditOff = 0x8000;
  const strings = Buffer.from("\0_xbi_open\0_xbi_stat\0_open\0_stat\0", "latin1");
  const sym = (strx: number, type: number, sect: number, desc: number, value: bigint) => {
    const b = Buffer.alloc(16);
    b.writeUInt32LE(strx, 0);
    b[4] = type;
    b[5] = sect;
    b.writeUInt16LE(desc, 6);
    b.writeBigUInt64LE(value, 8);
    return b;
  };
  const symbols = Buffer.concat([
    sym(1, 0x0e, 1, 0, 0x100n), // _xbi_open, local, in __text
    sym(11, 0x0e, 1, 0, 0x110n), // _xbi_stat
    sym(21, 0x01, 0, 0x0100, 0n), // _open, undefined, library ordinal 1
    sym(27, 0x01, 0, 0x0100, 0n), // _stat
    sym(1, 0x24, 1, 0, 0x100n), // a debugger (stab) entry: skipped
  ]);
  let sig = Buffer.alloc(0);
  if (f.signature !== undefined) {
    sig = Buffer.alloc(12 + 8 + 16);
    sig.writeUInt32BE(0xfade0cc0, 0);
    sig.writeUInt32BE(sig.length, 4);
    sig.writeUInt32BE(1, 8);
    sig.writeUInt32BE(0, 12); // slot type: CodeDirectory
    sig.writeUInt32BE(20, 16); // its offset
    sig.writeUInt32BE(0xfade0c02, 20);
    sig.writeUInt32BE(16, 24);
    sig.writeUInt32BE(0x20400, 28); // version
    sig.writeUInt32BE(f.signature, 32);
  }
  const linkedit = Buffer.concat([symbols, strings, Buffer.from(f.rebase), Buffer.from(f.bind), sig]);
  const symoff = linkeditOff;
  const stroff = symoff + symbols.length;
  const rebaseOff = stroff + strings.length;
  const bindOff = rebaseOff + f.rebase.length;
  const sigOff = bindOff + f.bind.length;

  const cmds: Buffer[] = [];
  const segment = (name: string, vmaddr: bigint, fileoff: bigint, sections: Buffer[]) => {
    const b = Buffer.alloc(72);
    b.writeUInt32LE(0x19, 0);
    b.writeUInt32LE(72 + 80 * sections.length, 4);
    str16(name).copy(b, 8);
    b.writeBigUInt64LE(vmaddr, 24);
    b.writeBigUInt64LE(0x4000n, 32);
    b.writeBigUInt64LE(fileoff, 40);
    b.writeBigUInt64LE(0x4000n, 48);
    b.writeUInt32LE(sections.length, 64);
    return Buffer.concat([b, ...sections]);
  };
  const section = (seg: string, name: string, addr: bigint, size: bigint, offset: number) => {
    const b = Buffer.alloc(80);
    str16(name).copy(b, 0);
    str16(seg).copy(b, 16);
    b.writeBigUInt64LE(addr, 32);
    b.writeBigUInt64LE(size, 40);
    b.writeUInt32LE(offset, 48);
    return b;
  };
  cmds.push(segment("__TEXT", 0n, 0n, [section("__TEXT", "__text", 0x100n, 0x20n, 0x100)]));
  cmds.push(segment("__DATA", 0x4000n, 0x4000n, [section("__DATA", "__interpose", 0x4000n, BigInt(f.interpose.length * 8), 0x4000)]));
  cmds.push(segment("__LINKEDIT", 0x8000n, 0x8000n, []));
  const dylibName = Buffer.from("/usr/lib/libSystem.B.dylib\0\0\0\0\0\0", "latin1");
  const dylib = Buffer.alloc(24);
  dylib.writeUInt32LE(0xc, 0);
  dylib.writeUInt32LE(24 + dylibName.length, 4);
  dylib.writeUInt32LE(24, 8);
  cmds.push(Buffer.concat([dylib, dylibName]));
  const symtab = Buffer.alloc(24);
  symtab.writeUInt32LE(0x2, 0);
  symtab.writeUInt32LE(24, 4);
  symtab.writeUInt32LE(symoff, 8);
  symtab.writeUInt32LE(5, 12);
  symtab.writeUInt32LE(stroff, 16);
  symtab.writeUInt32LE(strings.length, 20);
  cmds.push(symtab);
  const info = Buffer.alloc(48);
  info.writeUInt32LE(0x80000022, 0);
  info.writeUInt32LE(48, 4);
  info.writeUInt32LE(rebaseOff, 8);
  info.writeUInt32LE(f.rebase.length, 12);
  info.writeUInt32LE(bindOff, 16);
  info.writeUInt32LE(f.bind.length, 20);
  cmds.push(info);
  if (f.signature !== undefined) {
    const cs = Buffer.alloc(16);
    cs.writeUInt32LE(0x1d, 0);
    cs.writeUInt32LE(16, 4);
    cs.writeUInt32LE(sigOff, 8);
    cs.writeUInt32LE(sig.length, 12);
    cmds.push(cs);
  }
  const build = Buffer.alloc(24);
  build.writeUInt32LE(0x32, 0);
  build.writeUInt32LE(24, 4);
  build.writeUInt32LE(1, 8); // PLATFORM_MACOS
  build.writeUInt32LE((11 << 16) | (7 << 8) | 1, 12);
  cmds.push(build);
  if (f.chained) {
    const c = Buffer.alloc(16);
    c.writeUInt32LE(0x80000034, 0);
    c.writeUInt32LE(16, 4);
    cmds.push(c);
  }
  const lc = Buffer.concat(cmds);
  const header = Buffer.alloc(32);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeUInt32LE(f.cpu ?? CPU_TYPE.arm64, 4);
  header.writeUInt32LE(3, 8); // cpusubtype
  header.writeUInt32LE(MH_DYLIB, 12);
  header.writeUInt32LE(cmds.length, 16);
  header.writeUInt32LE(lc.length, 20);
  const file = Buffer.alloc(linkeditOff + linkedit.length);
  Buffer.concat([header, lc]).copy(file, 0);
  for (const [i, v] of f.interpose.entries()) file.writeBigUInt64LE(v, 0x4000 + i * 8);
  linkedit.copy(file, linkeditOff);
  return file;
}

/** Rebase both replacement slots (0x4000, 0x4010) of __DATA (segment 1). */
const REBASE = [0x11, 0x21, ...uleb(0n), 0x50 | 1, 0x30, ...uleb(8n), 0x50 | 1, 0x00];
/** Bind _open at 0x4008 and _stat at 0x4018, stepping with DO_BIND_ADD_ADDR_ULEB. */
const BIND = [
  0x11, // ordinal 1
  0x40,
  ...Buffer.from("_open\0"),
  0x51,
  0x71,
  ...uleb(8n),
  0xa0,
  ...uleb(8n), // bind, then skip 8 more: at 0x4018
  0x40,
  ...Buffer.from("_stat\0"),
  0x90,
  0x00,
];

describe("parseMachO", () => {
  test("header, segments, dylibs, symbols with their library, and the interpose pairs", () => {
    const buf = fakeDylib({ interpose: [0x100n, 0n, 0x110n, 0n], rebase: REBASE, bind: BIND, signature: CS_ADHOC | 0x20000 });
    const m = parseMachO(buf);
    expect(m.cpuType).toBe(CPU_TYPE.arm64);
    expect(m.fileType).toBe(MH_DYLIB);
    expect(m.segments.map((s) => s.name)).toEqual(["__TEXT", "__DATA", "__LINKEDIT"]);
    expect(m.dylibs).toEqual(["/usr/lib/libSystem.B.dylib"]);
    expect(m.symbols.map((s) => `${s.name}:${s.kind}:${s.dylib ?? "-"}`)).toEqual([
      "_xbi_open:14:-",
      "_xbi_stat:14:-",
      "_open:0:/usr/lib/libSystem.B.dylib",
      "_stat:0:/usr/lib/libSystem.B.dylib",
    ]);
    expect(m.rebases).toEqual([0x4000n, 0x4010n]);
    expect(m.minOs).toBe("11.7.1");
    expect(m.chainedFixups).toBe(false);
    expect(m.codeSignatureFlags! & CS_ADHOC).toBe(CS_ADHOC);
    expect(interposeEntries(buf, m)).toEqual([
      {
        replacement: "_xbi_open",
        replacementRebased: true,
        original: { address: 0x4008n, symbol: "_open", dylib: "/usr/lib/libSystem.B.dylib" },
      },
      {
        replacement: "_xbi_stat",
        replacementRebased: true,
        original: { address: 0x4018n, symbol: "_stat", dylib: "/usr/lib/libSystem.B.dylib" },
      },
    ]);
  });

  test("an entry whose original is not bound, or whose replacement is not slid, says so", () => {
    const bindOpenOnly = [0x11, 0x40, ...Buffer.from("_open\0"), 0x71, ...uleb(8n), 0x90, 0x00];
    const rebaseFirst = [0x21, ...uleb(0n), 0x51, 0x00];
    const buf = fakeDylib({ interpose: [0x100n, 0n, 0x999n, 0n], rebase: rebaseFirst, bind: bindOpenOnly });
    const [a, b] = interposeEntries(buf);
    expect(a).toMatchObject({ replacement: "_xbi_open", replacementRebased: true, original: { symbol: "_open" } });
    expect(b).toEqual({ replacement: undefined, replacementRebased: false, original: undefined });
    expect(parseMachO(buf).codeSignatureFlags).toBeUndefined();
  });

  test("refuses what it cannot read rather than guessing", () => {
    expect(() => parseMachO(Buffer.from("\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"))).toThrow(
      "not a 64-bit little-endian Mach-O file",
    );
    const chained = fakeDylib({ interpose: [0x100n, 0n], rebase: [0], bind: [0], chained: true });
    expect(parseMachO(chained).chainedFixups).toBe(true);
    expect(() => interposeEntries(chained)).toThrow(/chained fixups/);
    expect(() => parseMachO(fakeDylib({ interpose: [], rebase: [0], bind: [0xe0] }))).toThrow(/unsupported bind opcode 0xe0/);
  });
});

describe("universal files", () => {
  test("writeFat puts each thin file on a 16 KiB boundary; fatSlices finds them again", () => {
    const x64 = fakeDylib({ interpose: [0x100n, 0n], rebase: REBASE, bind: BIND, cpu: CPU_TYPE.x86_64 });
    const arm = fakeDylib({ interpose: [0x110n, 0n], rebase: REBASE, bind: BIND });
    const fat = writeFat([x64, arm]);
    expect(fat.readUInt32BE(0)).toBe(0xcafebabe);
    const slices = fatSlices(fat)!;
    expect(slices.map((s) => [s.cpuType, s.cpuSubtype, s.offset % 16384])).toEqual([
      [CPU_TYPE.x86_64, 3, 0],
      [CPU_TYPE.arm64, 3, 0],
    ]);
    expect(sliceBytes(fat, slices[0]!).equals(x64)).toBe(true);
    expect(interposeEntries(sliceBytes(fat, slices[1]!))[0]!.replacement).toBe("_xbi_stat");
    expect(fatSlices(x64)).toBeUndefined();
    expect(() => parseMachO(fat)).toThrow("not a 64-bit little-endian Mach-O file");
  });
});

describe("opcode streams", () => {
  const segments = [{ name: "__DATA", vmaddr: 0x1000n, vmsize: 0n, fileoff: 0n, sections: [] }];
  test("a huge ULEB steps backwards (offsets wrap at 64 bits), as zig's linker writes them", () => {
    const back = BigInt.asUintN(64, -0x10n);
    const ops = Buffer.from([0x70, ...uleb(0x40n), 0x40, ...Buffer.from("_a\0"), 0x90, 0x80, ...uleb(back), 0x90, 0x00]);
    expect(parseBinds(ops, 0, ops.length, segments, ["/usr/lib/libSystem.B.dylib"]).map((b) => b.address)).toEqual([0x1040n, 0x1038n]);
  });
  test("special ordinals and repeated binds and rebases", () => {
    const ops = Buffer.from([0x3e, 0x40, ...Buffer.from("_x\0"), 0x70, ...uleb(0n), 0xc0, ...uleb(3n), ...uleb(8n), 0x00]);
    const binds = parseBinds(ops, 0, ops.length, segments, []);
    expect(binds.map((b) => `${b.address.toString(16)} ${b.dylib}`)).toEqual(["1000 flat", "1010 flat", "1020 flat"]);
    const reb = Buffer.from([0x20, ...uleb(0n), 0x80, ...uleb(2n), ...uleb(8n), 0x70, ...uleb(0n), 0x00]);
    expect(parseRebases(reb, 0, reb.length, segments)).toEqual([0x1000n, 0x1010n, 0x1020n]);
  });
  test("a stream that names a missing segment or runs past its end throws", () => {
    const bad = Buffer.from([0x73, ...uleb(0n), 0x90]);
    expect(() => parseBinds(bad, 0, bad.length, segments, [])).toThrow(/segment 3/);
    const cut = Buffer.from([0x70, 0x80]);
    expect(() => parseBinds(cut, 0, cut.length, segments, [])).toThrow(/past its end/);
  });
});
