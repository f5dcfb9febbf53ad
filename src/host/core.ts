/**
 * The core classes the host uses at run time, handed in by the main entry's `TaskHost` before any host exists
 * (src/host/task-host-class.ts). In the build of dist/host/loaded.js the host's `import … from "mcp-tasks"`
 * resolves to this module (tsup.config.ts), so the lazily loaded code never imports the main entry back
 * (docs/architecture.md, Decision 19). A class the host starts using must be added here: the build fails until it is.
 */
import type * as Core from "../index.js";

export let TaskClient: typeof Core.TaskClient;
export let TaskEndedError: typeof Core.TaskEndedError;
export let TransportError: typeof Core.TransportError;

export interface CoreClasses {
  TaskClient: typeof Core.TaskClient;
  TaskEndedError: typeof Core.TaskEndedError;
  TransportError: typeof Core.TransportError;
}

/** Sets the classes above; the host's code only runs after this. */
export function provideCore(core: CoreClasses): void {
  ({ TaskClient, TaskEndedError, TransportError } = core);
}
