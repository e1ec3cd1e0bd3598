import { defineBuildConfig } from "unbuild";

export default defineBuildConfig({
  entries: ["src/index", "src/cli/index"],
  outDir: "dist/npm",
  declaration: true,
  clean: true,
  rollup: { emitCJS: false, inlineDependencies: false },
  failOnWarn: false,
});
