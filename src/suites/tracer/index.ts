/** The tracing-overhead suite (design.md section 7): `xbench bench tracer` and `compare --suite tracer`. */
export { buildBaseHelpers, findBun } from "./build-base.ts";
export { renderMarkdown, renderTerminal } from "./report.ts";
export { DEFAULT_ITERATIONS, PASSES, WARMUP_ITERATIONS, runTracerSuite, type TracerSuiteOptions } from "./suite.ts";
export { BACKENDS, TRACER_SCHEMA_ID, TRACER_SCHEMA_VERSION, type Backend, type TracerResult, type TracerRow } from "./model.ts";
