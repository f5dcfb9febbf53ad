/**
 * The input machinery of one task run, built from the client's settings: multi-round-trip rounds before a task
 * exists, and the coordinator that answers `input_required` once it does. Kept apart from the interpreter so
 * that file reads as the lifecycle and nothing else.
 */
import type { CallToolResult, InputResponse } from "../schema/index.js";
import { InputCoordinator, InputRounds } from "../input/index.js";
import { TaskInbox } from "../input/task-inbox.js";
import type { InputUnansweredError, ProtocolError } from "../protocol/errors.js";
import type { TaskSink } from "../task/types.js";
import type { CallEvent } from "../lifecycle/types.js";
import type { RunContext } from "./context.js";

/** Rounds for a call the server answered with `input_required`; `signal` stops asking the handlers. */
export function inputRoundsFor(
  context: RunContext,
  call: { method: string; toolName: string },
  sink: TaskSink<CallToolResult>,
  signal: AbortSignal,
): InputRounds {
  const options = context.options;
  return new InputRounds({
    handlers: options.inputHandlers,
    policy: options.unansweredInput,
    maxRounds: options.maxInputRounds,
    concurrency: options.inputConcurrency,
    context: { toolName: call.toolName, server: context.identity },
    signal,
    emitInput: (event) => sink.emitInput(event),
    emitUnanswered: (event) => sink.emitInputUnanswered(event),
    method: call.method,
  });
}

export interface CoordinatorHooks {
  taskId: string;
  toolName: string | undefined;
  /** Keys answered before (a task resumed from its ref). */
  answered: readonly string[] | undefined;
  /** Answers given and never acknowledged (a task resumed from its ref). */
  pending: Readonly<Record<string, unknown>> | undefined;
  /** Stores the ref with the answers about to be sent; rejects when it was not stored (nothing is sent then). */
  storeAnswers(): Promise<void>;
  sink: TaskSink<CallToolResult>;
  pollSoon(): void;
  /** The server acknowledged answers: the ref's answered keys changed. */
  submitted(): void;
  cancelTask(reason: InputUnansweredError): void;
  fail(error: InputUnansweredError | ProtocolError): void;
}

/** The coordinator for a task that asked for input; `tasks/update` retries follow the client's retry timing. */
export function inputCoordinatorFor(context: RunContext, hooks: CoordinatorHooks): InputCoordinator {
  const options = context.options;
  const { sink } = hooks;
  return new InputCoordinator({
    channel: context.channel,
    taskId: hooks.taskId,
    toolName: hooks.toolName,
    server: context.identity,
    handlers: options.inputHandlers,
    policy: options.unansweredInput,
    concurrency: options.inputConcurrency,
    retry: context.retry,
    ...(hooks.answered !== undefined && { answered: hooks.answered }),
    ...(hooks.pending !== undefined && { pending: hooks.pending as Record<string, InputResponse> }),
    storeAnswers: hooks.storeAnswers,
    emitInput: (event) => sink.emitInput(event),
    emitUnanswered: (event) => sink.emitInputUnanswered(event),
    emitRetry: (event) => sink.emitRetry(event),
    pollSoon: hooks.pollSoon,
    submitted: hooks.submitted,
    cancelTask: hooks.cancelTask,
    fail: hooks.fail,
  });
}

/** The inbox for server requests that name a task (2025-era input); policy and handlers as for `inputRequests`. */
export function taskInboxFor(
  context: RunContext,
  taskId: string,
  toolName: string | undefined,
  sink: TaskSink<CallToolResult>,
  dispatch: (event: CallEvent) => void,
): TaskInbox {
  const options = context.options;
  return new TaskInbox({
    taskId,
    toolName,
    server: context.identity,
    handlers: options.inputHandlers,
    policy: options.unansweredInput,
    concurrency: options.inputConcurrency,
    emitInput: (event) => sink.emitInput(event),
    emitUnanswered: (event) => sink.emitInputUnanswered(event),
    cancelTask: (reason) => dispatch({ type: "cancelRequested", reason }),
    fail: (error) => dispatch({ type: "failed", error }),
  });
}
