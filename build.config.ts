import { defineBuildConfig } from "unbuild";

export default defineBuildConfig({
  entries: ["src/index", "src/cli/index", "src/runner/bundle-main"],
  outDir: "dist/npm",
  declaration: true,
  clean: true,
  rollup: { emitCJS: false, inlineDependencies: false },
  failOnWarn: false,
  hooks: {
    // The CLI exports nothing, so its declaration chunk is empty: expected, not worth a warning.
    "rollup:dts:options"(_ctx, options) {
      options.onwarn = (warning, warn) => {
        if (warning.code !== "EMPTY_BUNDLE") warn(warning);
      };
    },
  },
});
