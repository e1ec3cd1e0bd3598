import { statSync } from "node:fs";

/** Whether `path` is a regular file (links followed); false for a folder or nothing there. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
