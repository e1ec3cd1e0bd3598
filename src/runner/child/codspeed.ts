/**
 * Stands in for CodSpeed's tinybench and Benchmark.js plugins: `withCodSpeed(bench)` returns
 * the bench unchanged, so a suite instrumented for CodSpeed runs under xbench as it is.
 */
export function withCodSpeed<T>(bench: T): T {
  return bench;
}
