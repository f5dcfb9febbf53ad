import { defineConfig } from "tsup";

// ESM + CJS + .d.ts for every public entry point. Add new entry points here and to package.json "exports".
export default defineConfig({
  entry: {
    index: "src/index.ts",
    "schema/index": "src/schema/index.ts",
    "testing/index": "src/testing/index.ts",
    "store/index": "src/store/index.ts",
    "store/redis": "src/store/redis.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  splitting: false,
});
