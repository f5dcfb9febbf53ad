/**
 * The 2025-11-25 mode's entry points, as `http-server.ts` and `stdio-server.ts` load them. The CommonJS build
 * swaps in `index.cjs.ts`, which runs the mode from the package's ESM build, so its code ships once.
 */
export { startLegacyHttpServer } from "./http.js";
export { startLegacyStdioServer } from "./stdio.js";
