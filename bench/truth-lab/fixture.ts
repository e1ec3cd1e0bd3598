/**
 * The truth lab's fixture: a small project with four kinds of workload and a change that
 * slows them by a known amount. Base pads nothing; head pads each workload with a spin
 * loop sized for +2% (bench/slow2.bench.ts) or +5% (bench/slow5.bench.ts) and leaves
 * bench/same.bench.ts untouched (A/A rows in the same runs).
 */

/** The workloads, as the project's own module (plain JS, so node runs the calibration directly). */
export const WORKLOADS_JS = `// Kinds of work a library does: a tight numeric loop, JSON of ~50 KB, allocation of many
// small objects, a short string operation, and a parser at tens of milliseconds a call.
const numbers = Float64Array.from({ length: 100000 }, (_, i) => (i * 7919) % 1000);
const doc = JSON.stringify(
  Array.from({ length: 400 }, (_, i) => ({ id: i, name: "item " + i, tags: ["a", "b", String(i % 7)], price: i * 1.25, active: i % 3 === 0 })),
);
let spinSink = 0;

/** A pad of n steps that the JIT cannot drop. */
export function spin(n) {
  let x = spinSink;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 31) + i) | 0;
  spinSink = x & 1;
  return spinSink;
}

// A parser's work at the scale of tens of milliseconds a call: tokenize and parse ~400 KB of
// generated statements into an AST, then count its nodes (allocation-heavy, JIT-heavy).
const source = Array.from(
  { length: 3000 },
  (_, i) => "let v" + i + " = (a" + (i % 13) + " + " + i + ") * f(b" + (i % 5) + ', "s' + i + '", [1, 2, ' + (i % 7) + "]) - g(v" + Math.max(0, i - 1) + ").length;",
).join("\\n");
function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10) { i++; continue; }
    let j = i + 1;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      tokens.push({ type: "name", value: text.slice(i, j) });
    } else if (c >= 48 && c <= 57) {
      while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      tokens.push({ type: "number", value: Number(text.slice(i, j)) });
    } else if (c === 34) {
      while (text.charCodeAt(j) !== 34) j++;
      j++;
      tokens.push({ type: "string", value: text.slice(i + 1, j - 1) });
    } else tokens.push({ type: "punct", value: text[i] });
    i = j;
  }
  return tokens;
}
const PREC = { "+": 1, "-": 1, "*": 2, "/": 2 };
function parseTokens(tokens) {
  let p = 0;
  const peek = () => tokens[p];
  const next = () => tokens[p++];
  const expect = (v) => { const t = next(); if (t.value !== v) throw new Error("expected " + v); return t; };
  const list = (close) => { const items = []; while (peek().value !== close) { items.push(expr(0)); if (peek().value === ",") next(); } next(); return items; };
  function primary() {
    const t = next();
    let node;
    if (t.value === "(") { node = expr(0); expect(")"); }
    else if (t.value === "[") node = { type: "array", items: list("]") };
    else node = { type: t.type, value: t.value };
    for (;;) {
      const q = peek();
      if (q && q.value === "(") { next(); node = { type: "call", callee: node, args: list(")") }; }
      else if (q && q.value === ".") { next(); node = { type: "member", object: node, property: next().value }; }
      else return node;
    }
  }
  function expr(min) {
    let left = primary();
    for (;;) {
      const op = peek();
      const prec = op && PREC[op.value];
      if (!prec || prec <= min) return left;
      next();
      left = { type: "binary", op: op.value, left, right: expr(prec) };
    }
  }
  const body = [];
  while (p < tokens.length) { expect("let"); const name = next().value; expect("="); body.push({ type: "let", name, init: expr(0) }); expect(";"); }
  return { type: "program", body };
}
function countNodes(node) {
  let n = 1;
  for (const key in node) {
    const v = node[key];
    if (Array.isArray(v)) for (const x of v) n += countNodes(x);
    else if (v && typeof v === "object") n += countNodes(v);
  }
  return n;
}

export const workloads = {
  sum(pad) {
    let s = 0;
    for (let i = 0; i < numbers.length; i++) s += numbers[i];
    return s + spin(pad);
  },
  json(pad) {
    return JSON.stringify(JSON.parse(doc)).length + spin(pad);
  },
  alloc(pad) {
    const byId = new Map();
    for (let i = 0; i < 1000; i++) byId.set(i, { id: i, name: "n" + i, parent: i >> 1 });
    return byId.size + spin(pad);
  },
  text(pad) {
    return "The Quick Brown Fox Jumps".toLowerCase().split(" ").reverse().join("-").length + spin(pad);
  },
  parse(pad) {
    return countNodes(parseTokens(tokenize(source))) + spin(pad);
  },
};
`;

export const KINDS = ["sum", "json", "alloc", "text", "parse"] as const;
export type Kind = (typeof KINDS)[number];
/** The lab's workloads by default: the microsecond-scale ones (`--kinds parse` runs the ms-scale one). */
export const DEFAULT_KINDS: Kind[] = ["sum", "json", "alloc", "text"];
export const FILES = { same: 0, slow2: 0.02, slow5: 0.05 } as const;
export type LabFile = keyof typeof FILES;

/** src/pads.js: the spin steps per file and workload; all zero on base. */
export function padsJs(pads: Record<LabFile, Record<Kind, number>>): string {
  return `export const PADS = ${JSON.stringify(pads, null, 2)};\n`;
}

export function benchFile(file: LabFile, kinds: readonly Kind[]): string {
  return [
    'import { bench, run } from "mitata";',
    'import { workloads } from "../src/workloads.js";',
    'import { PADS } from "../src/pads.js";',
    ...kinds.map((kind) => `bench(${JSON.stringify(kind)}, () => workloads.${kind}(PADS.${file}.${kind}));`),
    "await run();",
    "",
  ].join("\n");
}

/**
 * The truth: in one node process, the base and head copies of a bench file's closures (each
 * copy its own modules, constants as compare bundles them) measured alternately in batches of
 * ~5 ms for `seconds` per workload. Prints the ratio head/base per workload as JSON; with
 * "cost", the base copy's time per call and a spin step's time instead.
 */
export const CALIBRATE_JS = `const [mode, file, seconds, kindList] = process.argv.slice(2);
const kinds = kindList.split(",");
const base = await import("./base/" + file + ".js");
const head = await import("./head/" + file + ".js");
const now = () => performance.now() * 1e6;
function time(fn, n) { const t0 = now(); for (let i = 0; i < n; i++) fn(); return now() - t0; }
function itersFor(fn, ns) { let n = 1; while (time(fn, n) < ns) n *= 2; return n; }
function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function alternate(a, b, seconds) {
  const n = itersFor(a, 5e6);
  for (let i = 0; i < 40; i++) { time(a, n); time(b, n); }
  const ta = [], tb = [];
  const end = now() + seconds * 1e9;
  for (let i = 0; now() < end; i++) {
    if (i % 4 === 0 || i % 4 === 3) ta.push(time(a, n) / n); else tb.push(time(b, n) / n);
  }
  return { a: median(ta), b: median(tb) };
}
const out = {};
if (mode === "cost") {
  out.spinStepNs = alternate(() => base.spin(10000), () => head.spin(10000), 1).a / 10000;
  for (const kind of kinds) out[kind] = alternate(base.closures[kind], base.closures[kind], 1).a;
} else {
  for (const kind of kinds) {
    const r = alternate(base.closures[kind], head.closures[kind], Number(seconds));
    out[kind] = r.b / r.a;
  }
}
console.log(JSON.stringify(out));
`;

/** One side's copy of a bench file's closures for the calibration: the workloads with that side's pads inlined. */
export function calibrationCopy(file: LabFile, pads: Record<Kind, number>): string {
  return [
    WORKLOADS_JS,
    `const PADS = ${JSON.stringify(pads)};`,
    `export const closures = { ${KINDS.map((k) => `${k}: () => workloads.${k}(PADS.${k})`).join(", ")} };`,
    `// ${file}`,
    "",
  ].join("\n");
}
