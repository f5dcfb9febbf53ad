/**
 * What a `TaskHost` (src/host/) lends each client it makes, under one internal option that is never documented:
 * its share of the host's poll scheduler (src/scheduler/fair-scheduler.ts owns the fairness rule), a word
 * when the server's tool list changed, and a word when the connection dropped, with the means to open it again
 * (Decision 22: the host owns when). The key is a registered symbol, so the host's entry and the main entry,
 * bundled apart, agree on it, and `Object.keys` of the options never shows it.
 */
import type { PollJob, PollQueue } from "../scheduler/types.js";
import type { TaskClientOptions } from "./options.js";

export const HOST_HOOKS: unique symbol = Symbol.for("mcp-tasks.host-hooks");

export interface HostHooks {
  /** The client's poll queue, in place of a scheduler of its own. */
  polls(onJobError: (error: unknown, job: PollJob) => void): PollQueue;
  /** The server sent `notifications/tools/list_changed`. */
  toolsChanged(): void;
  /**
   * The connection dropped (a stdio server exited) and may be opened again: the client's handles wait (the host
   * holds their polls), and `reopen()` is one attempt (a new process, a 2025-era server initialized again); it
   * resolves once the connection is back, and rejects with why it is not.
   */
  dropped(reopen: () => Promise<void>): void;
}

/** The hooks of `options`, when a host made them. */
export function hostHooksOf(options: TaskClientOptions): HostHooks | undefined {
  const hooks = (options as { [HOST_HOOKS]?: unknown })[HOST_HOOKS];
  if (typeof hooks !== "object" || hooks === null) return undefined;
  return hooks as HostHooks;
}
