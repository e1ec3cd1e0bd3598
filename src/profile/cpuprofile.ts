/**
 * V8's CPU profile in Chrome's `.cpuprofile` format (what `node --cpu-prof` and `bun --cpu-prof`
 * write, and what Chrome DevTools and speedscope load): a call tree of nodes, and the node on
 * top of the stack at each sample with the time since the previous sample (µs).
 */

export interface CallFrame {
  functionName: string;
  scriptId: string | number;
  /** The script's URL (`file:///…` for a module), empty for the runtime's own entries. */
  url: string;
  /** 0-based position of the function in its script. */
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on the profiler's clock. */
  startTime: number;
  endTime: number;
  /** The id of the node on top of the stack at each sample. */
  samples: number[];
  /** µs from the previous sample (from startTime for the first). */
  timeDeltas: number[];
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Why `data` is not a cpuprofile, or undefined when it is one. */
export function cpuProfileProblem(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return "not a JSON object";
  const p = data as Partial<CpuProfile>;
  if (!Array.isArray(p.nodes) || p.nodes.length === 0) return "no nodes";
  if (!isNumber(p.startTime) || !isNumber(p.endTime)) return "no startTime or endTime";
  if (!Array.isArray(p.samples) || !Array.isArray(p.timeDeltas)) return "no samples or timeDeltas";
  if (p.samples.length !== p.timeDeltas.length) return `${p.samples.length} samples but ${p.timeDeltas.length} timeDeltas`;
  const ids = new Set<number>();
  for (const node of p.nodes) {
    const frame = node?.callFrame;
    if (!isNumber(node?.id) || typeof frame !== "object" || frame === null) return "a node without id or callFrame";
    if (typeof frame.functionName !== "string" || typeof frame.url !== "string")
      return `node ${node.id}: callFrame without functionName or url`;
    if (!isNumber(frame.lineNumber) || !isNumber(frame.columnNumber))
      return `node ${node.id}: callFrame without lineNumber or columnNumber`;
    ids.add(node.id);
  }
  const stray = p.samples.find((id) => !ids.has(id));
  if (stray !== undefined) return `a sample names node ${stray}, which is not in nodes`;
  if (!p.timeDeltas.every(isNumber)) return "a timeDelta is not a number";
  return undefined;
}

/** Parses a `.cpuprofile`; throws one line saying what is wrong. */
export function parseCpuProfile(text: string, source = "profile"): CpuProfile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON (${(error as Error).message.split("\n")[0]})`);
  }
  const problem = cpuProfileProblem(data);
  if (problem) throw new Error(`${source}: not a CPU profile: ${problem}`);
  return data as CpuProfile;
}

/** Each node's parent id (the root has none). */
export function parentsOf(profile: CpuProfile): Map<number, number> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  return parents;
}

/**
 * How long each sample stood for, in µs: the time until the next sample (the last one: until
 * endTime), as DevTools counts it. The profiler's clock can step back by a tick; never negative.
 */
export function sampleDurations(profile: CpuProfile): number[] {
  const { samples, timeDeltas } = profile;
  const last = profile.startTime + timeDeltas.reduce((sum, d) => sum + d, 0);
  return samples.map((_, i) => Math.max(0, i + 1 < samples.length ? timeDeltas[i + 1]! : profile.endTime - last));
}

/** A profile's samples, each kept or given to one "(other)" node: one side's part of a process. */
export interface ProfilePart {
  profile: CpuProfile;
  keep: readonly boolean[];
}

const OTHER_NAME = "(other)";

function frame(functionName: string): CallFrame {
  return { functionName, scriptId: 0, url: "", lineNumber: -1, columnNumber: -1 };
}

/**
 * One profile from several processes' parts, one after the other in time: each part's tree
 * (only the nodes on the path to a kept sample) hangs under a common root, its node ids
 * shifted apart, and every sample not kept goes to one "(other)" node, so the time line and
 * the total stay those of the processes (DevTools shows the other side's time as "(other)").
 */
export function mergeProfiles(parts: readonly ProfilePart[]): CpuProfile {
  const root: ProfileNode = { id: 1, callFrame: frame("(root)"), hitCount: 0, children: [2] };
  const other: ProfileNode = { id: 2, callFrame: frame(OTHER_NAME), hitCount: 0, children: [] };
  const nodes: ProfileNode[] = [root, other];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let offset = 2;
  let cursor = 0;
  let lastSample = 0;
  for (const { profile, keep } of parts) {
    const parents = parentsOf(profile);
    const kept = new Set<number>();
    profile.samples.forEach((id, i) => {
      for (let at: number | undefined = id; keep[i] && at !== undefined && !kept.has(at); at = parents.get(at)) kept.add(at);
    });
    const maxId = Math.max(...profile.nodes.map((n) => n.id));
    const shift = (id: number) => (parents.has(id) ? id + offset : root.id);
    for (const node of profile.nodes) {
      if (!kept.has(node.id)) continue;
      const children = (node.children ?? []).filter((c) => kept.has(c)).map(shift);
      if (!parents.has(node.id)) root.children!.push(...children);
      else nodes.push({ id: shift(node.id), callFrame: node.callFrame, hitCount: 0, children });
    }
    let at = cursor;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i]!;
      samples.push(keep[i] ? shift(id) : other.id);
      timeDeltas.push(at - lastSample);
      lastSample = at;
    });
    cursor += profile.endTime - profile.startTime;
    offset += maxId;
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const id of samples) byId.get(id)!.hitCount! += 1;
  return { nodes, startTime: 0, endTime: Math.max(cursor, lastSample), samples, timeDeltas };
}
