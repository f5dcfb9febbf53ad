/**
 * Owner of the client's events: their names and payloads (`TaskClientEvents`), and who may emit them. Only the
 * client's parts emit, through the function they are lent; callers listen through `TaskClient.on`, `once` and
 * `off`, so no caller can fake an event.
 */
import type { CallToolResult } from "../schema/index.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskOutcome } from "../task/types.js";
import type { Emitter } from "../task/emitter.js";

/** Events of a `TaskClient` (eventemitter3's semantics, ../task/emitter.ts; an `error` without listeners is not thrown). */
export interface TaskClientEvents {
  /** A handle learned its task id (the server created a task, or `client.task()` resumed one). */
  task: (handle: TaskHandle<CallToolResult>, taskId: string) => void;
  /** A handle ended. */
  settled: (handle: TaskHandle<CallToolResult>, outcome: TaskOutcome<CallToolResult>) => void;
  /**
   * The server created a task that no handle follows, so the client sent `tasks/cancel` for it: a `tools/call`
   * answered only after its handle had ended (a deadline, or a cancel's grace period, passed while the call was
   * unanswered), or a task the client cannot follow. `handle` is the ended handle the call belonged to; its
   * outcome has no task id, so this event is where the id is reported.
   */
  orphan: (taskId: string, handle: TaskHandle<CallToolResult>) => void;
  /** A fault no single handle owns: a transport error, a dropped connection, a failing scheduler job. */
  error: (error: unknown) => void;
  /** The connection ended (by `close()` or because the server went away). */
  closed: () => void;
}

/** How a part of the client emits one of its events. */
export type EmitClientEvent = Emitter<TaskClientEvents>["emit"];
