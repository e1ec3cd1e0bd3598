/**
 * Just enough of source maps (version 3) to map a function's position in a bundle back to its
 * original file and line: the base64 VLQ of `mappings`, decoded once into per-line segments,
 * and a lookup of the segment at or before a generated column. No names: Bun writes none, so
 * a function's name comes from the profile and the original text (profile/attribute.ts).
 */

/** A source map as written beside a bundle (`sourcemap: "external"`). */
export interface SourceMapFile {
  version: number;
  sources: string[];
  sourcesContent?: Array<string | null>;
  mappings: string;
  names?: string[];
}

/** One mapped segment: a generated column and the original position it came from (all 0-based). */
export interface Segment {
  column: number;
  source: number;
  line: number;
  originalColumn: number;
}

/** A decoded map: `lines[generatedLine]` holds that line's segments, sorted by column. */
export interface DecodedMap {
  sources: string[];
  sourcesContent: Array<string | null>;
  lines: Segment[][];
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/**
 * The numbers of one VLQ field group (`AAgBC` → [0, 0, 16, 1]): 5 bits per base64 digit, low
 * bits first, bit 6 set on every digit but the last; the lowest bit of the result is the sign.
 */
export function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`source map: "${char}" is not a base64 digit`);
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if (digit & 32) continue;
    values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
    value = 0;
    shift = 0;
  }
  if (shift !== 0) throw new Error("source map: a VLQ number is cut off");
  return values;
}

/**
 * Decodes `mappings`: `;` ends a generated line, `,` separates segments; every field but the
 * generated column (which restarts each line) is relative to the same field of the previous
 * segment anywhere in the map. Segments of one field (no source) map nothing and are dropped.
 */
export function decodeSourceMap(map: SourceMapFile): DecodedMap {
  if (map.version !== 3 || typeof map.mappings !== "string" || !Array.isArray(map.sources))
    throw new Error("source map: not a version 3 map with sources and mappings");
  const lines: Segment[][] = [];
  let source = 0;
  let line = 0;
  let originalColumn = 0;
  for (const text of map.mappings.split(";")) {
    const segments: Segment[] = [];
    let column = 0;
    for (const group of text.split(",")) {
      if (group === "") continue;
      const fields = decodeVlq(group);
      column += fields[0]!;
      if (fields.length < 4) continue;
      source += fields[1]!;
      line += fields[2]!;
      originalColumn += fields[3]!;
      segments.push({ column, source, line, originalColumn });
    }
    lines.push(segments.sort((a, b) => a.column - b.column));
  }
  return { sources: map.sources, sourcesContent: map.sourcesContent ?? [], lines };
}

/** Where a generated position (0-based line and column) came from: the segment at or before it on its line. */
export function originalPosition(
  map: DecodedMap,
  line: number,
  column: number,
): { source: string; line: number; column: number } | undefined {
  const segments = map.lines[line];
  if (!segments || segments.length === 0) return undefined;
  let found: Segment | undefined;
  for (const segment of segments) {
    if (segment.column > column) break;
    found = segment;
  }
  // A position before the line's first segment (indentation) belongs to that first segment.
  found ??= segments[0]!;
  const source = map.sources[found.source];
  return source === undefined ? undefined : { source, line: found.line, column: found.originalColumn };
}
