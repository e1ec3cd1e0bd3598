/**
 * Test helper run as a separate process: `edit PATH` makes one edit, `load PATH` one strict
 * read; a failure prints its error code or name and exits 1 (the parent checks what is left).
 */
import { createConfigStore } from "../../src/suites/config/store.ts";

const [what, path] = process.argv.slice(2);
const store = createConfigStore(path!, { lockTimeoutMs: 2_000 });
try {
  if (what === "edit") await store.edit((draft) => void (draft.projects[0]![1].workspaces[0]!.title = "from the child"));
  else store.load();
} catch (error) {
  process.stdout.write(`${(error as NodeJS.ErrnoException).code ?? (error as Error).name}\n`);
  process.exit(1);
}
