/** Test helper run as a separate process: N edits that each append one marker row. */
import { createConfigStore } from "../../src/suites/config/store.ts";

const [path, tag, count] = process.argv.slice(2);
const store = createConfigStore(path!);
for (let i = 0; i < Number(count); i++) {
  await store.edit((draft) => {
    draft.projects[0]![1].workspaces.push({ id: `${tag}-${i}`, name: tag!, path: "/tmp", createdAt: new Date(0).toISOString() });
  });
}
