/** What Holm (holm.ts) reads of a row: its p, and its interval of ln(h/b) at any level, with the level reached. */
export interface IntervalSource {
  /** The smallest α at which the row's interval excludes 0. */
  p: number;
  at(level: number): { interval: [number, number]; level: number };
}
