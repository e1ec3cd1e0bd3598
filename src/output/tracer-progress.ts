import { runTracerBench, type TracerBenchOptions, type TracerResult } from "../suites/tracer/index.ts";
import { log } from "./log.ts";

/** The tracer suite with its steps and every sixth iteration said on stderr (`bench tracer`, `compare --suite tracer`). */
export async function runTracerBenchWithProgress(options: TracerBenchOptions): Promise<TracerResult> {
  const started = Date.now();
  const result = await runTracerBench({
    ...options,
    onStep: (message) => log.info(message),
    onIteration: (done, total) => {
      if (done === total || done % 6 === 0) log.info(`iteration ${done}/${total}`);
    },
  });
  log.info(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}
