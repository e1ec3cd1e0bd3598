/** The suite's view of a tracer log: the tracer's own parser, reduced to what validation checks. */
import { readAccessLog } from "../../tracer/index.ts";
import type { LoggedTrace } from "./validate.ts";

/** Parses `logFile` with the tracer's reader (src/tracer). */
export function readTraceLog(logFile: string): LoggedTrace {
  const log = readAccessLog(logFile);
  return { accesses: log.accesses, incompleteReasons: log.incompleteReasons };
}
