import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Examples and tests import the package by its public name, exactly as users do; these aliases point the
// names at the sources so no build is needed.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^mcp-tasks$/, replacement: source("./src/index.ts") },
      { find: /^mcp-tasks\/schema$/, replacement: source("./src/schema/index.ts") },
      { find: /^mcp-tasks\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^mcp-tasks\/store$/, replacement: source("./src/store/index.ts") },
      { find: /^mcp-tasks\/store\/redis$/, replacement: source("./src/store/redis.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "scripts/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
