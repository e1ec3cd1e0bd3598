/**
 * Stands in for CodSpeed's tinybench and Benchmark.js plugins: `withCodSpeed(bench)` returns
 * the bench unchanged, so a suite instrumented for CodSpeed runs under xbench as it is.
 */
// @ts-nocheck -- bundled from a virtual module into bench processes
export function withCodSpeed<T>(bench: T): T {
  return bench;
}
