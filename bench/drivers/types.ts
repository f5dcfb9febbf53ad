/**
 * What the measuring process needs from a library under test: connect over a transport, start one tool call
 * per task at once, report each call's end, close. Each library gets a driver written the way its own
 * documentation tells users to call it.
 */
import type { Transport } from "@modelcontextprotocol/client";

/**
 * mcp-tasks (with its defaults, notifications "auto"), mcp-tasks with notifications "off" (push scenarios
 * only), mcp-tasks with telemetry on the API's no-op globals and on the SDK (telemetry scenario only), the
 * official requestor, and a hand-written poller that marks the floor of the harness.
 */
export type LibraryName =
  "ours" | "ours-polling" | "ours-otel-noop" | "ours-otel-sdk" | "ext-tasks" | "floor";

export interface CallObserver {
  /** A call resolved with its tool result. */
  resolved(result: unknown): void;
  /** A call ended any other way. */
  failed(error: unknown): void;
}

export interface ConnectedLibrary {
  /** Starts `count` tool calls at once; resolves when every one of them has ended. */
  callAll(count: number, observer: CallObserver): Promise<void>;
  close(): Promise<void>;
}

export interface LibraryDriver {
  name: LibraryName;
  /** The smallest poll interval the library can be configured to honour, for the report. */
  smallestIntervalMs: number;
  /**
   * `smallestInterval`: configure the library for the smallest poll interval it allows. `kind` "legacy": the
   * server speaks 2025-11-25, so connect the way the library's documentation says for such a server.
   */
  connect(
    transport: Transport,
    settings: { smallestInterval: boolean; kind?: "push" | "legacy" },
  ): Promise<ConnectedLibrary>;
}

/** Resolves once `count` calls to the returned `ended()` have happened. */
export function countdown(count: number): { ended: () => void; all: Promise<void> } {
  let remaining = count;
  let finish!: () => void;
  const all = new Promise<void>((resolve) => (finish = resolve));
  if (remaining === 0) finish();
  return { ended: () => --remaining === 0 && finish(), all };
}
