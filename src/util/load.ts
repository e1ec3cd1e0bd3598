import { loadavg } from "node:os";
import type { LoadAvg } from "../model/result.ts";

/** One-, five- and fifteen-minute load now (zeros where the OS has none, as on Windows). */
export function currentLoad(): LoadAvg {
  const [one, five, fifteen] = loadavg();
  return [one ?? 0, five ?? 0, fifteen ?? 0];
}

/** `1.23 0.98 0.75` */
export function formatLoad(load: readonly number[]): string {
  return load.map((x) => x.toFixed(2)).join(" ");
}
