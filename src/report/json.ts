/**
 * The JSON form is the result model itself (model.ts), with its schema id and version.
 * `parseResult` checks a saved file before anything renders it: malformed JSON, another schema,
 * a newer schema version or a wrong shape each give one line (exit 2), never a stack trace.
 */
import { XbenchError } from "../errors.ts";
import { RUNTIMES, SCHEMA_ID, SCHEMA_VERSION, type CompareResult, type PairedStats } from "../model/result.ts";

/** A saved result that cannot be read back: not JSON, another schema, or a field out of shape. */
export class ResultFileError extends XbenchError {
  override name = "ResultFileError";
}

/** The result as given: the JSON needs no analysis (its rows keep their stable ids). */
export function renderJson(result: CompareResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

type Check = (value: unknown) => boolean;

const isNumber: Check = (v) => typeof v === "number" && Number.isFinite(v);
const isString: Check = (v) => typeof v === "string";
const isBoolean: Check = (v) => typeof v === "boolean";
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const oneOf =
  (...options: string[]): Check =>
  (v) =>
    typeof v === "string" && options.includes(v);
const arrayOf =
  (item: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(item);
const tuple =
  (length: number, item: Check): Check =>
  (v) =>
    Array.isArray(v) && v.length === length && v.every(item);
const isRounds = arrayOf((v) => v === null || isNumber(v));
/** JSON has no Infinity and writes it as null: a bound of an unbounded interval (too few rounds). */
const isBound: Check = (v) => v === null || isNumber(v);

/** Field name → check; a `?` suffix marks an optional field. */
type Shape = Record<string, Check>;

/** A commit's id: hex, so a crafted result cannot put text where the report shows a sha. */
const isSha: Check = (v) => typeof v === "string" && /^[0-9a-f]{4,64}$/.test(v);
const REVISION: Shape = { ref: isString, sha: isSha, dirty: isBoolean };
const STATS: Shape = {
  n: isNumber,
  delta: isNumber,
  ci: tuple(2, isBound),
  verdict: oneOf("slower", "faster", "same", "~"),
  baseMedian: isNumber,
  headMedian: isNumber,
  ratioMedian: isNumber,
  ratioQ1: isNumber,
  ratioQ3: isNumber,
  "p?": isNumber,
  "pAdjusted?": isNumber,
  "level?": isNumber,
  "halfWidth?": isBound,
  "method?": oneOf("signed-rank", "crossover"),
};
const EXACT: Shape = {
  base: isNumber,
  head: isNumber,
  difference: isNumber,
  verdict: oneOf("same", "more", "fewer"),
  "varies?": isBoolean,
};
const shaped =
  (shape: Shape): Check =>
  (v) =>
    firstMismatch(v, shape, "") === undefined;
const ROW: Shape = {
  id: isString,
  file: isString,
  label: isString,
  unit: oneOf("ns", "instructions", "cycles", "count", "bytes"),
  status: oneOf("ok", "new", "removed", "failed", "unchanged", "no-work", "uncounted", "skipped"),
  "uncounted?": shaped({ why: oneOf("waits", "kernel"), share: isNumber }),
  "error?": shaped({ side: oneOf("base", "head", "both"), message: isString }),
  "mode?": oneOf("duet", "isolated", "mixed"),
  base: isRounds,
  head: isRounds,
  "firstSide?": arrayOf((v) => v === null || v === "base" || v === "head"),
  "stats?": shaped(STATS),
  "exact?": shaped(EXACT),
  "profile?": shaped({ processes: isNumber, functions: Array.isArray, other: isObject }),
};
/** A saved gate's rule; its rows are decided again from the table, never trusted as written. */
const isGateRule: Check = (v) =>
  isObject(v) && (v.on === "slower" || v.on === "change" || (v.on === "above" && isNumber(v.above) && (v.above as number) > 0));
const RESULT: Shape = {
  xbenchVersion: isString,
  runtime: oneOf(...RUNTIMES),
  rounds: shaped({
    requested: isNumber,
    planned: isNumber,
    completed: isNumber,
    cycle: isNumber,
    "stoppedBy?": oneOf("rounds", "target", "time"),
    "targetHalfWidth?": isNumber,
    "maxTimeS?": isNumber,
    "measuredS?": isNumber,
    "jobs?": isNumber,
  }),
  base: shaped(REVISION),
  head: shaped(REVISION),
  loadavg: shaped({ start: tuple(3, isNumber), end: tuple(3, isNumber) }),
  startedAt: isString,
  finishedAt: isString,
  holm: isBoolean,
  "level?": isNumber,
  "coverage?": isNumber,
  "minEffect?": isNumber,
  "settings?": isObject,
  "cores?": isNumber,
  "measure?": shaped({ quantity: oneOf("instructions", "cycles"), tool: isString, runtimeFlags: isString, "caches?": isObject }),
  "gate?": shaped({ rule: isGateRule, outcome: oneOf("pass", "fail", "undecided") }),
  // Shown in the report's notes as numbers: a crafted shard file cannot put text there.
  "shard?": shaped({ index: isNumber, count: isNumber }),
  "shards?": arrayOf(
    shaped({
      index: isNumber,
      count: isNumber,
      rounds: isNumber,
      rows: isNumber,
      loadavg: shaped({ start: tuple(3, isNumber), end: tuple(3, isNumber) }),
    }),
  ),
  rows: Array.isArray,
};

/** The path of the first field that does not fit `shape`, or undefined. */
function firstMismatch(value: unknown, shape: Shape, path: string): string | undefined {
  if (!isObject(value)) return path || "(top level)";
  for (const [key, check] of Object.entries(shape)) {
    const optional = key.endsWith("?");
    const name = optional ? key.slice(0, -1) : key;
    const field = value[name];
    if (field === undefined && optional) continue;
    if (!check(field)) return `${path}${path ? "." : ""}${name}`;
  }
  return undefined;
}

/** Parses and checks a saved result; `source` names the file in error messages. */
export function parseResult(text: string, source = "result"): CompareResult {
  const fail = (why: string) => new ResultFileError(`${source}: ${why}`, { kind: "usage" });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fail(`not valid JSON (${String((error as Error).message).split("\n")[0]})`);
  }
  if (!isObject(data) || data.schema !== SCHEMA_ID) {
    const found = isObject(data) && typeof data.schema === "string" ? `schema ${JSON.stringify(data.schema)}` : "no schema id";
    throw fail(`not an xbench compare result (${found}, expected ${JSON.stringify(SCHEMA_ID)})`);
  }
  const version = data.schemaVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw fail(`schemaVersion must be a whole number >= 1, got ${JSON.stringify(version)}`);
  }
  if (version > SCHEMA_VERSION) {
    throw fail(`written with schema version ${version}, newer than this xbench reads (${SCHEMA_VERSION}); upgrade xbench`);
  }
  const bad = firstMismatch(data, RESULT, "");
  if (bad) throw fail(`field ${bad} is missing or has the wrong type`);
  const rows = data.rows as unknown[];
  for (let i = 0; i < rows.length; i++) {
    const badRow = firstMismatch(rows[i], ROW, `rows[${i}]`);
    if (badRow) throw fail(`field ${badRow} is missing or has the wrong type`);
  }
  return reviveUnbounded(data as unknown as CompareResult);
}

/** Reads the null bounds JSON wrote for an unbounded interval back as ±Infinity. */
function reviveUnbounded(result: CompareResult): CompareResult {
  const bound = (v: number | null, infinity: number) => (v === null ? infinity : v);
  const rows = result.rows.map((row) => {
    // As parsed, a bound or halfWidth may be null (checked by isBound above).
    const parsed = row.stats as unknown as { ci: Array<number | null>; halfWidth?: number | null } | undefined;
    if (!parsed || (!parsed.ci.includes(null) && parsed.halfWidth !== null)) return row;
    const stats: PairedStats = { ...row.stats!, ci: [bound(parsed.ci[0]!, -Infinity), bound(parsed.ci[1]!, Infinity)] };
    if (parsed.halfWidth === null) stats.halfWidth = Infinity;
    return { ...row, stats };
  });
  return { ...result, rows };
}
