import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { countParsesPerSave, editWithReaderOnEveryTurn, sameValueEdit, writeFixture, type Fixture } from "./harness.ts";
import { createConfigStore, type SnapshotPolicy } from "./store.ts";

/**
 * The config suite's rows, registered through the `bench` and `metric` functions the
 * caller passes in: mitata's and xbench's in bench/config.bench.ts (run by mitata or by
 * `xbench compare`), a runtime-loaded mitata and a local list in `xbench bench config`.
 * Passing them in keeps this module free of static imports of mitata and src/bench/api.ts,
 * which build.ts embeds as files in the compiled binary (Bun cannot also bundle them as code).
 */

/** The two registration functions a suite needs (mitata's `bench`, xbench's `metric`). */
export interface SuiteApi {
  bench(name: string, fn: () => unknown): unknown;
  metric(label: string, measure: () => number | Promise<number>, options: { unit: "count" }): void;
}

/** A metric row as registered: label and how to measure it. */
export interface SuiteMetric {
  label: string;
  unit: "count";
  measure: () => Promise<number>;
}

export const DEFAULT_SIZES = [50, 500, 5000, 4712] as const;

export interface SuiteOptions {
  sizes: readonly number[];
  /** Folder for the fixtures; the caller removes it. */
  root: string;
  policy?: SnapshotPolicy;
  /** Edits counted per `parses per save` metric. */
  countedEdits?: number;
}

export const rowLabels = {
  freshLoad: (n: number) => `loadConfig, fresh store (${n})`,
  snapshotHit: (n: number) => `loadConfig, snapshot hit (${n})`,
  lookup: (n: number) => `findWorkspace(last id) (${n})`,
  allMetadata: (n: number) => `allWorkspaceMetadata (${n})`,
  sameValueEdit: (n: number) => `editConfig, same-value edit (${n})`,
  editThenLoad: (n: number) => `editConfig, then loadConfig (${n})`,
  readerEveryTurn: (n: number) => `editConfig, reader on every event-loop turn (${n})`,
  parsesPerSave: (n: number) => `parses per save (${n})`,
};

/** Writes the fixtures and registers every row; returns the fixtures and the metrics added. */
export function defineConfigSuite(options: SuiteOptions, api: SuiteApi): { fixtures: Fixture[]; metrics: SuiteMetric[] } {
  const { bench } = api;
  const policy = options.policy ?? "publish-written";
  const fixtures = options.sizes.map((size) => writeFixture(options.root, size));
  const metrics: SuiteMetric[] = [];
  for (const fx of fixtures) {
    const n = fx.size;
    const store = () => createConfigStore(fx.path, { policy });
    const warm = () => {
      const s = store();
      s.load();
      return s;
    };
    bench(rowLabels.freshLoad(n), () => store().load());
    const hit = warm();
    bench(rowLabels.snapshotHit(n), () => hit.load());
    const finder = warm();
    bench(rowLabels.lookup(n), () => finder.findWorkspace(fx.lastId));
    const lister = warm();
    bench(rowLabels.allMetadata(n), () => lister.allWorkspaceMetadata());
    const editor = store();
    bench(rowLabels.sameValueEdit(n), () => sameValueEdit(editor, fx.lastId));
    const editLoader = store();
    bench(rowLabels.editThenLoad(n), async () => {
      await sameValueEdit(editLoader, fx.lastId);
      return editLoader.load();
    });
    const busy = warm();
    bench(rowLabels.readerEveryTurn(n), () => editWithReaderOnEveryTurn(busy, fx.lastId));
    const counted: SuiteMetric = {
      label: rowLabels.parsesPerSave(n),
      unit: "count",
      measure: async () => (await countParsesPerSave(fx.path, fx.lastId, policy, options.countedEdits ?? 3)).parsesPerSave,
    };
    metrics.push(counted);
    api.metric(counted.label, counted.measure, { unit: counted.unit });
  }
  return { fixtures, metrics };
}

export interface TimingRow {
  label: string;
  /** Median and mean of mitata's samples, ns. */
  p50: number;
  avg: number;
  samples: number;
  error?: string;
}

/** The part of mitata's `run()` result this module reads. */
export interface MitataRunResult {
  benchmarks: { runs: { name: string; stats?: { p50: number; avg: number; samples: number[] }; error?: unknown }[] }[];
}
export type MitataRun = (options: { format: "quiet"; colors: boolean }) => Promise<MitataRunResult>;

/** Runs what defineConfigSuite registered with mitata's `run`, quietly: one row per benchmark. */
export async function runRegistered(run: MitataRun): Promise<TimingRow[]> {
  const { benchmarks } = await run({ format: "quiet", colors: false });
  return benchmarks.flatMap((trial) =>
    trial.runs.map((r): TimingRow => {
      if (!r.stats)
        return { label: r.name, p50: Number.NaN, avg: Number.NaN, samples: 0, error: String((r.error as Error)?.message ?? r.error) };
      return { label: r.name, p50: r.stats.p50, avg: r.stats.avg, samples: r.stats.samples.length };
    }),
  );
}

export interface OverheadRatio {
  size: number;
  pairs: number;
  /** Median over pairs of (edit with a reader on every turn) / (same-value edit, no readers). */
  ratio: number;
  /** First and third quartile of the pair ratios: how much the machine moved during the run. */
  ratioQ1: number;
  ratioQ3: number;
  medianSameValueNs: number;
  medianReaderNs: number;
}

/** Quantile with linear interpolation between order statistics (type 7, R's default). */
function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}
const median = (values: number[]) => quantile(values, 0.5);

/**
 * The reader-on-every-turn budget (at most 5% over a same-value edit), measured in one run: same-value edits with and without a reader
 * on every turn, alternated AB/BA so both arms see the same machine state, paired ratios.
 */
export async function measureReaderOverhead(fx: Fixture, pairs = 10, policy: SnapshotPolicy = "publish-written"): Promise<OverheadRatio> {
  // One copy of the file per arm: an edit by one arm must not invalidate the other's snapshot.
  const copy = (name: string) => {
    const path = join(fx.dir, name);
    copyFileSync(fx.path, path);
    return path;
  };
  const plain = createConfigStore(copy("plain-config.json"), { policy });
  const busy = createConfigStore(copy("busy-config.json"), { policy });
  const time = async (f: () => Promise<void>) => {
    const t0 = performance.now();
    await f();
    return (performance.now() - t0) * 1e6;
  };
  const a = () => time(() => sameValueEdit(plain, fx.lastId));
  const b = () => time(() => editWithReaderOnEveryTurn(busy, fx.lastId));
  plain.load();
  busy.load();
  await a(); // warm both paths once
  await b();
  const ratios: number[] = [];
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < pairs; i++) {
    let ta: number;
    let tb: number;
    if (i % 2 === 0) {
      ta = await a();
      tb = await b();
    } else {
      tb = await b();
      ta = await a();
    }
    as.push(ta);
    bs.push(tb);
    ratios.push(tb / ta);
  }
  return {
    size: fx.size,
    pairs,
    ratio: median(ratios),
    ratioQ1: quantile(ratios, 0.25),
    ratioQ3: quantile(ratios, 0.75),
    medianSameValueNs: median(as),
    medianReaderNs: median(bs),
  };
}
