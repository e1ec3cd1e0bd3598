/**
 * The runtime-agreement fixture: a small project whose head is faster, in two ways.
 *
 * - `src/escape.js`: an HTML escaper modeled on a real performance commit ("faster scanning in
 *   encodeHTML", entities 8, written anew): base tests every character against a bitset in a
 *   charCode loop; head scans a short window inline through a helper and jumps over longer
 *   clean runs with a regex. On prose with long clean runs head is much faster; on entities'
 *   own short, dense benchmark string the change is a few percent, and on deno 2.9 (V8 15) its
 *   sign depends on where the call sits: from a bench closure (inlined with its constant
 *   argument, the inlining budget runs out before head's helper) head is slower, called from a
 *   shared function it is faster (docs/runtime-agreement.md).
 * - `src/synthetic.js`: plain arithmetic; head does 40% less of it (head/base about 0.6).
 *
 * Plain JS, so that node runs the direct script on the sources themselves, unbundled.
 */

/**
 * The escaping tables both versions share: a bitset of the ASCII characters to escape, and
 * named references, some with a second code unit that makes another entity (`<` + U+20D2).
 */
const TABLES = `const BITSET = new Uint32Array(4);
for (const ch of "\\t\\n\\f!\\"#$%&'()*+,-./:;<=>?@[\\\\]^_\`{|}") BITSET[ch.charCodeAt(0) >>> 5] |= 1 << (ch.charCodeAt(0) & 31);
const NAMED = new Map([
  [9, "&Tab;"], [10, "&NewLine;"], [33, "&excl;"], [34, "&quot;"], [35, "&num;"], [36, "&dollar;"], [37, "&percnt;"],
  [38, { value: "&amp;", next: new Map([[38, "&AMP;"]]) }], [39, "&apos;"], [40, "&lpar;"], [41, "&rpar;"],
  [60, { value: "&lt;", next: new Map([[0x20d2, "&nvlt;"]]) }], [61, { value: "&equals;", next: new Map([[0x20e5, "&bne;"]]) }],
  [62, { value: "&gt;", next: new Map([[0x20d2, "&nvgt;"]]) }], [0xa9, "&copy;"], [0xdf, "&szlig;"], [0xfc, "&uuml;"],
  [0x2764, "&hearts;"], [0xe9, "&eacute;"], [0x2014, "&mdash;"],
]);
const numericReference = (cp) => \`&#\${cp};\`;
`;

/** Base: every character tested against the bitset in one charCode loop (entities before the change). */
export const ESCAPE_BASE_JS = `${TABLES}
const ASCII = Array.from({ length: 128 }, (_, c) => {
  const named = NAMED.get(c);
  return typeof named === "object" ? named.value : (named ?? null);
});

export function encodeHTML(input) {
  return scan(BITSET, input);
}

function scan(bitset, input) {
  let out;
  let last = 0;
  const { length } = input;
  for (let index = 0; index < length; index++) {
    const code = input.charCodeAt(index);
    // Characters that need no escaping are skipped one by one.
    if (code < 0x80 && !((bitset[code >>> 5] >>> code) & 1)) continue;
    if (out === undefined) out = input.substring(0, index);
    else if (last !== index) out += input.substring(last, index);
    let node = NAMED.get(code);
    if (typeof node === "object") {
      const value = index + 1 < length ? node.next.get(input.charCodeAt(index + 1)) : undefined;
      if (value !== undefined) {
        out += value;
        index++;
        last = index + 1;
        continue;
      }
      node = code < 0x80 ? ASCII[code] : node.value;
    }
    if (node === undefined || node === null) {
      const cp = input.codePointAt(index);
      out += numericReference(cp);
      if (cp !== code) index++;
    } else out += node;
    last = index + 1;
  }
  if (out === undefined) return input;
  if (last < length) out += input.substring(last);
  return out;
}
`;

/**
 * Head: a short window scanned inline through a helper, a regex jump over clean runs longer
 * than the window, and an ASCII table that holds the branch nodes itself (entities after it).
 */
export const ESCAPE_HEAD_JS = `${TABLES}
const ASCII = Array.from({ length: 128 }, (_, c) => NAMED.get(c) ?? null);
const ESCAPE_RE = /[\\t\\n\\f!-/:-@[-\`{-}\\u0080-\\uFFFF]/g;
const WINDOW = 16;
const LONG_GAP = 8;

export function encodeHTML(input) {
  return scan(BITSET, ESCAPE_RE, input);
}

function isEncodable(bitset, code) {
  return code >= 0x80 || ((bitset[code >>> 5] >>> code) & 1) === 1;
}

function scan(bitset, re, input) {
  const { length } = input;
  let out;
  let last = 0;
  let index = 0;
  let longGaps = false;
  while (index < length) {
    let code = input.charCodeAt(index);
    if (!isEncodable(bitset, code)) {
      // Find the next character to escape: inline within a short window, else by regex.
      const start = index;
      let next = index + 1;
      let found = false;
      if (!longGaps) {
        const bound = Math.min(index + WINDOW, length);
        while (next < bound && !isEncodable(bitset, (code = input.charCodeAt(next)))) next++;
        if (next < bound) {
          index = next;
          found = true;
        } else if (next >= length) break;
      }
      if (!found) {
        re.lastIndex = next;
        if (!re.test(input)) break;
        index = re.lastIndex - 1;
        longGaps = !longGaps || index - start >= LONG_GAP;
        code = input.charCodeAt(index);
      }
    }
    if (out === undefined) out = input.substring(0, index);
    else if (last !== index) out += input.substring(last, index);
    let node = code < 0x80 ? ASCII[code] : NAMED.get(code);
    if (typeof node === "object" && node !== null) {
      const value = index + 1 < length ? node.next.get(input.charCodeAt(index + 1)) : undefined;
      if (value !== undefined) {
        out += value;
        index += 2;
        last = index;
        continue;
      }
      node = node.value;
    }
    if (node === undefined || node === null) {
      const cp = input.codePointAt(index);
      out += numericReference(cp);
      if (cp !== code) index++;
    } else out += node;
    last = index + 1;
    index++;
  }
  if (out === undefined) return input;
  if (last < length) out += input.substring(last);
  return out;
}
`;

/** Arithmetic a JIT cannot fold away; head does 60% of base's steps. */
export const syntheticJs = (steps: number) => `const STEPS = ${steps};
export function work(seed) {
  let x = seed | 0;
  for (let i = 0; i < STEPS; i++) x = (Math.imul(x, 31) + i) ^ (x >>> 7);
  return x;
}
`;
export const SYNTHETIC_STEPS = { base: 5000, head: 3000 };

/** The inputs: entities' own benchmark string (short, dense) and prose with markup (long clean runs). */
export const INPUTS_JS = `export const SHORT = \`über & unter's sprießende <boo> ❤️👊😉\`;
export const PAGE = "The quick brown fox jumps over the lazy dog, and then <em>rests</em> & sleeps. ".repeat(40);
export const SEED = 12345;
`;

/** The rows, as a bench file registers them and as the direct script calls them. */
export const ROWS = [
  { label: "encodeHTML short", module: "escape", fn: "encodeHTML", input: "SHORT" },
  { label: "encodeHTML page", module: "escape", fn: "encodeHTML", input: "PAGE" },
  { label: "synthetic", module: "synthetic", fn: "work", input: "SEED" },
] as const;

export const BENCH_JS = [
  'import { bench, run } from "mitata";',
  'import { encodeHTML } from "../src/escape.js";',
  'import { work } from "../src/synthetic.js";',
  'import { PAGE, SEED, SHORT } from "../src/inputs.js";',
  "",
  ...ROWS.map((row) => `bench(${JSON.stringify(row.label)}, () => ${row.fn}(${row.input}));`),
  "await run();",
  "",
].join("\n");

/**
 * The direct measurement, one plain script for node, bun and deno: imports base's and head's
 * sources (unbundled) into one process and alternates them in blocks of `blockMs` (A B B A…),
 * after a warm-up. Two call styles, because on deno the answer depends on it: `call` times
 * `fn(input)` from one block function shared by both versions (a polymorphic call site, as a
 * hand-written script has); `closure` times each version's bench closure, `() => fn(input)`,
 * from a block function of its own (as the bench file registers it). Prints one JSON line:
 * per row and style, the median of head/base over the block pairs, by process CPU time and by
 * wall time.
 */
export const DIRECT_JS = `const [baseDir, headDir, blockMs = "200", pairs = "12"] = globalThis.Deno?.args ?? process.argv.slice(2);
const rows = ${JSON.stringify(ROWS)};
const load = async (dir) => ({
  escape: await import(dir + "/src/escape.js"),
  synthetic: await import(dir + "/src/synthetic.js"),
  inputs: await import(dir + "/src/inputs.js"),
});
const base = await load(baseDir);
const head = await load(headDir);
let sink;
/**
 * Process CPU time in ms: on a shared machine a block that lost the core meanwhile is not
 * counted longer (wall time is kept too). Background JIT and GC threads count, on both sides.
 */
const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
function shared(fn, input, ms) {
  const w0 = performance.now();
  const c0 = cpu();
  let n = 0;
  let t;
  do {
    for (let i = 0; i < 64; i++) sink = fn(input);
    n += 64;
    t = performance.now() - w0;
  } while (t < ms);
  return { wall: t / n, cpu: (cpu() - c0) / n };
}
// One block function per closure, compiled from a source of its own (no shared feedback).
let serial = 0;
function ownBlock(closure) {
  return new Function("closure", "cpu", \`let sink; return function block(ms) {
    const w0 = performance.now();
    const c0 = cpu();
    let n = 0;
    let t;
    do {
      for (let i = 0; i < 64; i++) sink = closure();
      n += 64;
      t = performance.now() - w0;
    } while (t < ms);
    return { wall: t / n, cpu: (cpu() - c0) / n };
  } // \${serial++}\`)(closure, cpu);
}
/** () => fn(input), as a bench file's closure: one per version and row, with feedback of its own. */
function closureOf(fn, input) {
  return new Function("fn", "input", \`return () => fn(input); // \${serial++}\`)(fn, input);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const result = {};
for (const row of rows) {
  const input = base.inputs[row.input];
  const fns = { base: base[row.module][row.fn], head: head[row.module][row.fn] };
  const blocks = {
    call: { base: (ms) => shared(fns.base, input, ms), head: (ms) => shared(fns.head, input, ms) },
    closure: { base: ownBlock(closureOf(fns.base, input)), head: ownBlock(closureOf(fns.head, input)) },
  };
  for (const [style, pair] of Object.entries(blocks)) {
    pair.base(300);
    pair.head(300);
    const ratios = { wall: [], cpu: [] };
    for (let i = 0; i < Number(pairs); i++) {
      const order = i % 2 === 0 ? ["base", "head"] : ["head", "base"];
      const t = {};
      for (const side of order) t[side] = pair[side](Number(blockMs));
      for (const clock of ["wall", "cpu"]) ratios[clock].push(t.head[clock] / t.base[clock]);
    }
    result[row.label] = { ...result[row.label], [style]: { wall: median(ratios.wall), cpu: median(ratios.cpu) } };
  }
}
console.log(JSON.stringify(result));
`;
