/**
 * Which side each sample of a duet process belongs to, and each side's functions with their
 * self time. Both sides' code runs in one process from two bundles with their own file names,
 * so a sample belongs to the side whose bundle holds the nearest frame on its stack (the
 * function on top, or the bench code that called into the runtime, a package or the garbage
 * collector); a sample with no side's frame on its stack (the driver's loop, start-up) is
 * neither's. A function's self time is the number of samples it is on top of (counts, not the
 * time between samples: a process the machine's load put aside for a while has a long gap
 * there, which would be charged to whatever ran before it); a function
 * is the user's own when the bundle's source map puts it in a project file (not a package,
 * not xbench's stand-ins), named by the profile and keyed by that name and its file.
 *
 * node's profile names the bundle (`file:///…/side.js`) at its own positions, which the
 * bundle's source map turns into original ones; bun's profile has already applied the map and
 * names the original files on each side's checkout, so a frame in a project file under a
 * side's root (outside node_modules) is that side's, at the position the profile gives.
 */
import { relative, resolve } from "pathe";
import type { Side } from "../model/result.ts";
import { parentsOf, type CallFrame, type CpuProfile } from "./cpuprofile.ts";
import { originalPosition, type DecodedMap } from "./sourcemap.ts";

/** One side's bundle as loaded in the process: its URL in the profile and how to read its positions. */
export interface SideBundle {
  side: Side;
  /** `file:///…/side.js`, as the profile's callFrame.url names it. */
  url: string;
  map: DecodedMap;
  /** Folder the map's `sources` are relative to (the bundle's own, real path). */
  mapDir: string;
  /** The side's checkout: original files are named relative to it, the same on both sides. */
  root: string;
}

/** A user function of one side: its name, its original file (relative to the side's root) and 1-based line. */
export interface FunctionId {
  name: string;
  file: string;
  line: number;
}

/** What one process's profile holds of one side. */
export interface SideTime {
  /** Samples that belong to the side. */
  samples: number;
  /** Samples each user function of the side is on top of, by functionKey. */
  functions: Map<string, FunctionId & { self: number }>;
}

export interface ProcessAttribution {
  sides: Record<Side, SideTime>;
  /** The side of each sample, undefined for neither. */
  sampleSides: Array<Side | undefined>;
}

/** Functions match across sides by name and original file; the line may move with edits above it. */
export function functionKey(fn: Pick<FunctionId, "name" | "file">): string {
  return `${fn.name}\u0000${fn.file}`;
}

const IDENTIFIER_CHAR = /[\w$]/;

function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const before = text[at - 1];
    const after = text[at + word.length];
    if ((!before || !IDENTIFIER_CHAR.test(before)) && (!after || !IDENTIFIER_CHAR.test(after))) return true;
  }
  return false;
}

/**
 * The function's name as written: the bundler renames a top-level function that clashes with
 * another module's (`parse` → `parse2`), and that suffix differs between sides, so a name the
 * original line lacks loses a numeric suffix the line then has.
 */
export function originalName(profileName: string, originalLine: string | undefined): string {
  const name = profileName || "(anonymous)";
  if (originalLine === undefined || containsWord(originalLine, name)) return name;
  const unsuffixed = /^(.*\D)\d+$/.exec(name)?.[1];
  return unsuffixed && containsWord(originalLine, unsuffixed) ? unsuffixed : name;
}

/** A project file of the side's checkout that a frame names by its original path (bun), relative to the root. */
function projectFile(url: string, root: string): string | undefined {
  if (!url.startsWith("file://")) return undefined;
  const file = relative(root, decodeURIComponent(url.slice("file://".length)));
  return file.startsWith("..") || file.startsWith("/") || /(^|\/)node_modules\//.test(file) ? undefined : file;
}

/** Whether a frame is code of this side: its bundle, or (bun) one of its project files. */
export function isSideFrame(frame: CallFrame, bundle: SideBundle): boolean {
  return frame.url === bundle.url || projectFile(frame.url, bundle.root) !== undefined;
}

/** The user function a frame of a side is, or undefined for xbench's or a package's code in its bundle. */
export function resolveFunction(frame: CallFrame, bundle: SideBundle): FunctionId | undefined {
  const file = projectFile(frame.url, bundle.root);
  if (file !== undefined) return { name: frame.functionName || "(anonymous)", file, line: frame.lineNumber + 1 };
  if (frame.url !== bundle.url) return undefined;
  const at = originalPosition(bundle.map, frame.lineNumber, frame.columnNumber);
  if (!at) return undefined;
  // Stand-ins are virtual modules (`xbench:shim`): no path, nothing under the side's root.
  if (!at.source.includes("/") && !at.source.startsWith(".")) return undefined;
  const original = relative(bundle.root, resolve(bundle.mapDir, at.source));
  if (original.startsWith("..") || original.includes("node_modules/")) return undefined;
  const index = bundle.map.sources.indexOf(at.source);
  const text = bundle.map.sourcesContent[index] ?? undefined;
  return { name: originalName(frame.functionName, text?.split("\n")[at.line]), file: original, line: at.line + 1 };
}

/** Splits one duet process's profile between the sides (see the header). */
export function attributeProcess(profile: CpuProfile, bundles: readonly SideBundle[]): ProcessAttribution {
  const bundleOf = (frame: CallFrame) => bundles.find((b) => isSideFrame(frame, b));
  const parents = parentsOf(profile);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const sideOfNode = new Map<number, Side | undefined>();
  const sideOf = (id: number): Side | undefined => {
    if (sideOfNode.has(id)) return sideOfNode.get(id);
    const own = bundleOf(nodes.get(id)!.callFrame)?.side;
    const parent = parents.get(id);
    const side = own ?? (parent === undefined ? undefined : sideOf(parent));
    sideOfNode.set(id, side);
    return side;
  };
  const functionOfNode = new Map<number, FunctionId | undefined>();
  const functionOf = (id: number): FunctionId | undefined => {
    if (!functionOfNode.has(id)) {
      const frame = nodes.get(id)!.callFrame;
      const bundle = bundleOf(frame);
      functionOfNode.set(id, bundle ? resolveFunction(frame, bundle) : undefined);
    }
    return functionOfNode.get(id);
  };
  const sides: Record<Side, SideTime> = {
    base: { samples: 0, functions: new Map() },
    head: { samples: 0, functions: new Map() },
  };
  const sampleSides = profile.samples.map((id) => {
    const side = sideOf(id);
    if (!side) return undefined;
    const time = sides[side];
    time.samples += 1;
    const fn = functionOf(id);
    if (fn) {
      const key = functionKey(fn);
      const entry = time.functions.get(key) ?? { ...fn, self: 0 };
      entry.self += 1;
      // One name in one file at several lines (overloads, nested helpers): the first line names them.
      entry.line = Math.min(entry.line, fn.line);
      time.functions.set(key, entry);
    }
    return side;
  });
  return { sides, sampleSides };
}
