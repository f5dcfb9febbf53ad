/**
 * Runs a schema script's main function: a `SchemaScriptError` is printed as a plain message, anything else
 * with its stack, and both exit non-zero.
 */
import { SchemaScriptError } from "./layout.js";

export function runScript(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof SchemaScriptError) console.error(`error: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  });
}

/** Milliseconds since `start`, rounded, for the scripts' closing line. */
export function elapsedMs(start: number): number {
  return Math.round(performance.now() - start);
}
