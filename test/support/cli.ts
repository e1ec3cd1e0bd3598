import { spyOn } from "bun:test";
import type { AnyCommand } from "../../src/args/types.ts";
import { runCli } from "../../src/cli/main.ts";

/** Runs the full CLI in-process from `root` on `argv`: its exit status and what it wrote. */
export async function runCliCaptured(root: AnyCommand, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await runCli(root, argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
