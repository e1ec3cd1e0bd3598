/**
 * Compiles one bundle for an xbench that runs on node or deno, which have no bundler:
 * bundle.ts starts this under Bun with the request as JSON in argv[2]; the bundle's path goes
 * to stdout, a failure is one line on stderr and exit 1.
 */
import { bundle, type BundleRequest } from "./bundle.ts";

export async function bundleMain(requestJson: string | undefined): Promise<number> {
  try {
    const path = await bundle(JSON.parse(requestJson ?? "") as BundleRequest);
    process.stdout.write(`${path}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${(error as Error).message.split("\n")[0]}\n`);
    return 1;
  }
}

process.exitCode = await bundleMain(process.argv[2]);
