/** Where no helper exists yet (all but Linux x64 and Windows x64), tracing says so in one line and exits 2. */
import { afterEach, expect, test } from "bun:test";
import { XbenchError } from "../../src/errors.ts";
import { trace } from "../../src/tracer/index.ts";

const realPlatform = process.platform;
const realArch = process.arch;
const realHelperDir = process.env.XBENCH_HELPER_DIR;

afterEach(() => {
  Object.defineProperty(process, "platform", { value: realPlatform });
  Object.defineProperty(process, "arch", { value: realArch });
  if (realHelperDir === undefined) delete process.env.XBENCH_HELPER_DIR;
  else process.env.XBENCH_HELPER_DIR = realHelperDir;
});

test.each([
  ["darwin", "arm64"],
  ["win32", "arm64"],
  ["linux", "arm64"],
])("trace() on %s-%s: one clear line, exit code 2", async (platform, arch) => {
  delete process.env.XBENCH_HELPER_DIR;
  Object.defineProperty(process, "platform", { value: platform });
  Object.defineProperty(process, "arch", { value: arch });
  const error = await trace("true", []).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(XbenchError);
  expect((error as XbenchError).message).toBe(`tracing is not available on ${platform}-${arch} yet`);
  expect((error as XbenchError).exitCode).toBe(2);
});
