/** "Did you mean": the closest of known names to what was typed (commands, flags, refs, paths). */

/** Edit distance: small words only, so the quadratic table is fine. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest name within `maxDistance` edits (or one that `typed` starts), as cargo suggests. */
export function closest(typed: string, names: Iterable<string>, maxDistance = 2): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(typed) && typed.length >= 2 ? 0.5 : editDistance(typed, name);
    if (distance <= maxDistance && distance < name.length && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean X?)`, or nothing when no name is close. */
export function didYouMean(typed: string, names: Iterable<string>, maxDistance = 2): string {
  const guess = closest(typed, names, maxDistance);
  return guess === undefined ? "" : ` (did you mean ${guess}?)`;
}
