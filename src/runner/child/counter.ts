/**
 * Callgrind as a bench process's counter (docs/counting.md). The process runs under valgrind
 * with instrumentation and collection off; the native module (native/linux/counter.c) issues
 * valgrind's client requests that switch them on and dump the counters, and this module reads
 * each dump back: the header of the file callgrind writes the moment the request is made.
 */
import { closeSync, openSync, readSync, unlinkSync } from "node:fs";
import type { CountingJob, CountMeasure, CycleWeights } from "../protocol.ts";
import type { Region } from "./sampler.ts";

/** What the native module exports (native/linux/counter.c). */
interface CounterModule {
  running(): boolean;
  instrument(on: boolean): void;
  collect(on: boolean): void;
  zero(): void;
  dump(label: string): void;
}

/** Callgrind's events of one dump, by name (`Ir`, and with the cache simulation `Dr`, `D1mr`, …). */
export type Events = Record<string, number>;

/**
 * The events of a callgrind dump, from its header: `events: Ir Dr …` names them and
 * `summary: …` holds the totals, in that order. Undefined when either line is missing.
 */
export function parseDumpHeader(text: string): Events | undefined {
  const names = /^events:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = /^summary:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!names || !totals || totals.some((t) => !Number.isFinite(t))) return undefined;
  // A dump of a window in which nothing was collected lists fewer totals than events.
  return Object.fromEntries(names.map((name, i) => [name, totals[i] ?? 0]));
}

/**
 * Estimated cycles of a window: every instruction fetch and data access is an L1 hit, an L1 miss
 * served by the last-level cache, or a last-level miss, from callgrind's cache simulation, each
 * weighted (protocol.ts CYCLE_WEIGHTS; docs/counting.md, "Estimated cycles").
 */
export function estimatedCycles(events: Events, weights: CycleWeights): number {
  const get = (name: string) => events[name] ?? 0;
  const accesses = get("Ir") + get("Dr") + get("Dw");
  const l1Misses = get("I1mr") + get("D1mr") + get("D1mw");
  const llMisses = get("ILmr") + get("DLmr") + get("DLmw");
  return weights.l1 * (accesses - l1Misses) + weights.ll * (l1Misses - llMisses) + weights.ram * llMisses;
}

/** What a counted measure reads from a window's events. */
export type MeasureValue = (events: Events) => number;

/** The value a measure reads from a window's events. */
export function measureValue(measure: CountMeasure, weights: CycleWeights): MeasureValue {
  return measure === "cycles" ? (events) => estimatedCycles(events, weights) : (events) => events.Ir ?? 0;
}

export interface Counter {
  measure: CountMeasure;
  /** What a window's events come to in the measure's unit. */
  value: MeasureValue;
  /** Counting in the current window: every region begun since zero() (each adds a fixed cost). */
  regions: number;
  /** Switches callgrind's instrumentation on, once: it stays on for the rest of the process. */
  instrument(): void;
  /** Empties the counters and the region count. */
  zero(): void;
  /** Dumps the counters under `label` and returns what they held. */
  read(label: string): Events;
  /** The region a counted batch measures (sampler.ts measureRegion). */
  region: Region;
}

/** The header of a dump lies in its first lines; the rest lists functions. */
const HEADER_BYTES = 4096;

function readHeader(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = new Uint8Array(HEADER_BYTES);
    const length = readSync(fd, buffer, 0, HEADER_BYTES, 0);
    return new TextDecoder().decode(buffer.subarray(0, length));
  } finally {
    closeSync(fd);
  }
}

/**
 * Loads the native module and checks that this process is counted. Dumps go to `<out>.<N>`,
 * N counting from 1 in the order of the requests; each is read and removed.
 */
export function openCounter(job: CountingJob): Counter {
  const module = { exports: {} as CounterModule };
  process.dlopen(module, job.addon);
  const native = module.exports;
  if (!native.running()) throw new Error("this bench process is not running under valgrind, so nothing can be counted");
  let dumps = 0;
  let instrumented = false;
  const counter: Counter = {
    measure: job.measure,
    value: measureValue(job.measure, job.weights),
    regions: 0,
    instrument() {
      if (instrumented) return;
      native.instrument(true);
      instrumented = true;
    },
    zero() {
      native.zero();
      counter.regions = 0;
    },
    read(label) {
      native.dump(label);
      const path = `${job.out}.${++dumps}`;
      const text = readHeader(path);
      unlinkSync(path);
      const events = parseDumpHeader(text);
      if (!events) throw new Error(`callgrind's dump ${path} has no events and summary lines`);
      return events;
    },
    region: {
      begin() {
        counter.regions++;
        native.collect(true);
        return 0;
      },
      end() {
        native.collect(false);
        return 0;
      },
      mark: () => 0,
    },
  };
  return counter;
}
