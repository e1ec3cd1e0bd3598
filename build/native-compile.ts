/**
 * The one compile loop of the native helpers: each unit of a toolchain (build/native-units.ts)
 * is compiled into a temporary file beside its output, checked, and only then renamed into
 * place, so a failed build never leaves a half-written helper where a trace would load it.
 * build.ts (linux-x64) and build/native-{linux-arm64,darwin,windows}.ts differ only in the
 * options they pass.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import { join } from "pathe";
import { compileCommand, type NativeUnit, type Toolchain } from "./native-units.ts";

export interface CompileOptions {
  /** The repository the sources are under. */
  root: string;
  /** $XBENCH_CFLAGS, split. */
  cflags?: string[];
  env?: NodeJS.ProcessEnv;
  /** Flags of one unit after cflags (musl-gcc's kernel headers for a static unit). */
  unitFlags?: (unit: NativeUnit) => string[];
  /** The compiler and its first arguments, in place of the toolchain's (zig: `zig cc -target T`). */
  compiler?: { cc: string; args: string[] };
  /** Checks the built file; a message fails the unit. */
  check?: (file: string, unit: NativeUnit) => string | undefined;
  /** What error messages name beside the unit (a target). */
  label?: string;
}

/** Compiles `unit` to `out`; throws one message naming the unit when the compiler or the check fails. */
export function compileUnit(toolchain: Toolchain, unit: NativeUnit, out: string, options: CompileOptions): string {
  const what = options.label ? `${unit.name} (${options.label})` : unit.name;
  const tmp = `${out}.tmp`;
  const extra = [...(options.cflags ?? []), ...(options.unitFlags?.(unit) ?? [])];
  const command = compileCommand(toolchain, unit, { root: options.root, out: tmp, extra });
  const cc = options.compiler?.cc ?? command.cc;
  const args = [...(options.compiler?.args ?? []), ...command.args];
  const r = spawnSync(cc, args, { encoding: "utf8", env: options.env ?? process.env });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} failed:\n${r.stderr}`);
  // Warnings of a unit that built: shown, not fatal (-Werror already made the C ones fatal).
  if (r.stderr) process.stderr.write(r.stderr);
  const wrong = options.check?.(tmp, unit);
  if (wrong) throw new Error(`${what} was linked wrong: ${wrong}`);
  renameSync(tmp, out);
  return out;
}

/** Compiles `units` into `outDir` under their own names; returns the built files. */
export function compileUnits(toolchain: Toolchain, units: readonly NativeUnit[], outDir: string, options: CompileOptions): string[] {
  mkdirSync(outDir, { recursive: true });
  return units.map((unit) => compileUnit(toolchain, unit, join(outDir, unit.name), options));
}
