/**
 * The noise kinds the statistics' seeded simulations draw per-round log ratios from
 * (docs/statistics.md): normal, heavy-tailed, whole-process shifts, and this machine's recorded
 * A/A ratios with random signs (symmetric, as a randomized order of sides makes them).
 */
import seedRows from "../fixtures/seed-aa-rows.json" with { type: "json" };

export type Noise = (random: () => number) => number;

const RECORDED = seedRows.map((row) => Math.log(row.head / row.base));
const gauss = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const sign = (random: () => number) => (random() < 0.5 ? -1 : 1);

export const NOISE: Record<string, Noise> = {
  normal: (random) => 0.02 * gauss(random),
  "t(3)": (random) => (0.02 * gauss(random)) / Math.sqrt((gauss(random) ** 2 + gauss(random) ** 2 + gauss(random) ** 2) / 3),
  "mixture of ±40% process shifts": (random) => 0.01 * gauss(random) + (random() < 0.2 ? sign(random) * Math.log(1.4) : 0),
  "recorded A/A ratios, sign-flipped": (random) => sign(random) * RECORDED[Math.floor(random() * RECORDED.length)]!,
};
