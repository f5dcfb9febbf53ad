/**
 * The CommonJS twin of `index.ts` (the tsup CJS build resolves `./auth/index.js` here). The authorization server
 * is not bundled twice: `startTaskServer({ auth })` from CommonJS gets its server from the package's ESM build,
 * through a dynamic import of `mcp-tasks/testing`, as the 2025-11-25 mode does.
 */
import type { AuthGate } from "./gate.js";

export type { AuthGate, TaskServerAuth } from "./gate.js";

export const AUTH_IN_THIS_BUILD = false;

function elsewhere(): never {
  throw new Error("mcp-tasks/testing (CommonJS): authorization is served by the ESM build");
}

export const createAuthGate: (...args: unknown[]) => AuthGate = elsewhere;
export const refuse: (...args: unknown[]) => Promise<Response | undefined> = elsewhere;
