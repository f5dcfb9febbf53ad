/**
 * The SDK's OAuth code writes its warnings straight to `console.warn` (`[mcp-sdk] OAuth "invalid_grant" — …`), past
 * the client's `logger` and the CLI's output, and has no option to change that. While one of our OAuth transports
 * has a request (or a code exchange) in the SDK's hands, `console.warn` lines that start with `[mcp-sdk]` go to that
 * client's logger instead; every other line passes through untouched. When nothing is in the SDK's hands, the
 * console is left as it was.
 *
 * A warning cannot say which request it came from: with several OAuth clients busy at once, it goes to the logger
 * of the one that entered last.
 */
import type { Logger } from "../protocol/logging.js";

const PREFIX = "[mcp-sdk] ";
const active: Logger[] = [];
let original: ((...args: unknown[]) => void) | undefined;
let installed: ((...args: unknown[]) => void) | undefined;

function diverted(...args: unknown[]): void {
  const [first, ...rest] = args;
  const log = active.at(-1);
  if (log !== undefined && typeof first === "string" && first.startsWith(PREFIX)) {
    log.warn(`OAuth (SDK): ${first.slice(PREFIX.length)}`, ...rest);
    return;
  }
  original?.apply(console, args);
}

/** Runs `work` with the SDK's console warnings sent to `log`. */
export async function withSdkWarningsTo<T>(log: Logger, work: () => Promise<T>): Promise<T> {
  if (active.length === 0 && console.warn !== installed) {
    original = console.warn as (...args: unknown[]) => void;
    installed = diverted;
    console.warn = diverted;
  }
  active.push(log);
  try {
    return await work();
  } finally {
    active.splice(active.lastIndexOf(log), 1);
    // Someone who replaced console.warn meanwhile keeps theirs.
    if (active.length === 0 && console.warn === installed && original !== undefined) {
      console.warn = original;
      installed = undefined;
    }
  }
}
