/**
 * citty decides once, as it loads, whether its help is coloured, and says no under `CI` or
 * `TEST` whatever `FORCE_COLOR` says. xbench makes that decision itself, per stream, for help as
 * for reports (output/color.ts) and strips colour where it is not wanted, so citty is loaded
 * with the variables it would read hidden: it always colours, and the one decision stands.
 */
const HIDDEN = ["CI", "TEST", "NO_COLOR", "TERM"] as const;

export async function loadCitty(env: Record<string, string | undefined> = process.env): Promise<void> {
  const saved = HIDDEN.map((name) => [name, env[name]] as const);
  for (const name of HIDDEN) delete env[name];
  try {
    await import("citty");
  } finally {
    for (const [name, value] of saved) if (value !== undefined) env[name] = value;
  }
}
