/**
 * What the client sees of its telemetry: an observer for the session's requests and a hook for each new handle.
 * Only types live here, so the client can name them without loading OpenTelemetry.
 */
import type { CallToolResult } from "../schema/index.js";
import type { RequestObserver, ServerInfo } from "../session/types.js";
import type { TransportKind } from "../session/negotiate.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskWatcher } from "../task/types.js";

export interface ClientTelemetry extends RequestObserver {
  /**
   * A handle was made (`callTool`, `client.task()`), before its first request: its span starts now, as a child
   * of the caller's active context, and follows the handle's events until it ends.
   */
  taskStarted(task: WatchedTask, call: StartedCall): void;
  /** The observer of another session's requests (a task's own, joined by ref): the same records, in that session. */
  observerFor(session: TracedSession): RequestObserver;
  /** Stops listening to the session. */
  close(): void;
}

/** A new handle as telemetry follows it (a `TaskRun` is one). */
export interface WatchedTask {
  /** The handle: requests made for it name it as their owner. */
  readonly handle: TaskHandle<CallToolResult>;
  /** Installs the handle's one internal watcher, which hears its events without listeners. */
  watch(watcher: TaskWatcher<CallToolResult>): void;
}

export interface StartedCall {
  toolName: string | undefined;
  /** Followed by `client.task(ref)` rather than started by `callTool`. */
  resumed: boolean;
}

/** The session as telemetry reads it (`Session` is one). */
export interface TracedSession {
  readonly transportKind: TransportKind;
  readonly sessionId: string | undefined;
  readonly server: ServerInfo | undefined;
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void;
}

/** Where the client connects, as far as the attributes go. */
export interface TracedConnection {
  session: TracedSession;
  /** The URL the client was given; undefined for stdio and for a transport the app built. */
  url: string | undefined;
}
