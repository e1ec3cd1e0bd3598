/** The suite's view of a tracer log: the tracer's own parser, reduced to paths and modes. */
import { XbenchError } from "../../cli/errors.ts";
import type { LoggedAccess } from "./validate.ts";

/** Parses `logFile` with the tracer's reader (src/tracer). */
export function readTraceAccesses(logFile: string): LoggedAccess[] {
  throw new XbenchError(`the tracer's log reader is not built yet (cannot read ${logFile})`);
}
