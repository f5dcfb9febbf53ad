/**
 * Authorization for the reference server, as `http-server.ts` and `legacy/http.ts` load it. The CommonJS build
 * swaps in `index.cjs.ts`, whose servers with `auth` come from the package's ESM build, so this code ships once.
 */
export { createAuthGate, refuse, type AuthGate, type TaskServerAuth } from "./gate.js";

/** Whether this build serves `auth` itself (the ESM build) or hands such servers to the ESM build. */
export const AUTH_IN_THIS_BUILD = true;
