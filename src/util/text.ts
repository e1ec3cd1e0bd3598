/** The last `n` lines of a process's output, for one error message that shows what went wrong. */
export function lastLines(text: string, n: number): string {
  return text.trimEnd().split("\n").slice(-n).join("\n");
}

/**
 * The last `n` lines, and before them the start of the first error when it scrolled out of
 * them: `npm ci` states its reason first and then prints its whole usage. Lines with no words
 * of their own (`npm error`) are left out of that start.
 */
export function failureTail(text: string, n: number, headLines = 4): string {
  const lines = text.trimEnd().split("\n");
  if (lines.length <= n) return lines.join("\n");
  const earlier = lines.slice(0, -n);
  const first = earlier.findIndex((line) => /\berror\b|\bERR_|\bERR!/i.test(line));
  if (first === -1) return lines.slice(-n).join("\n");
  const contentful = (line: string) => line.replace(/^\s*(npm|pnpm|yarn)?\s*(error|ERR!)?\s*$/i, "") !== "";
  const head = earlier.slice(first).filter(contentful).slice(0, headLines);
  return [...head, "…", ...lines.slice(-n)].join("\n");
}
