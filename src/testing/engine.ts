/**
 * The transport-neutral heart of the reference server: the tools, the task store, the timers of
 * time-advanced scripts and the `notifications/tasks` subscribers. HTTP and stdio serving, and the
 * SDK request handlers, all call into one engine, so every transport sees the same tasks. The tool list can
 * change while the server runs (`setTools`); whoever watches it (`onToolsChanged`: listens that asked for
 * `toolsListChanged`, 2025-11-25 connections) is told, and tasks already running keep the script they started with.
 */
import { randomUUID } from "node:crypto";
import { ProtocolError } from "./load-server-sdk.js";
import type { DetailedTask, InputRequests, InputResponse } from "../schema/index.js";
import type { Clock } from "./clock.js";
import { ErrorCode } from "./constants.js";
import { ToolDefinitionError } from "./errors.js";
import { takeAnswers } from "./input-answers.js";
import type { RequestStateCodec } from "./request-state.js";
import { createRequestStateCodec } from "./request-state.js";
import type { TaskRecord } from "./task-record.js";
import { createTaskResultOf, detailedTaskOf, isTerminal } from "./task-record.js";
import type { RunnerEnvironment } from "./task-runner.js";
import { answer, canAdvance, requestCancel, tick } from "./task-runner.js";
import { TaskStore } from "./task-store.js";
import type { ToolDefinition } from "./tool.js";
import { defineTool, resolveAdvance, resolveSteps, TOOL_DEFAULTS } from "./tool.js";
import type { ToolCallRequest } from "./tool-call.js";
import { handleToolCall } from "./tool-call.js";

export interface EngineOptions {
  tools: readonly ToolDefinition[];
  clock: Clock;
  /** Hears script errors and other out-of-band failures. */
  onError?: (error: Error) => void;
}

/** A listener for one subscription's task changes. */
export type TaskListener = (task: DetailedTask) => void;

/** How a tool appears in `tools/list`. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export class TaskEngine {
  readonly store: TaskStore;
  private tools: ReadonlyMap<string, ToolDefinition>;
  private readonly toolWatchers = new Set<() => void>();
  private readonly clock: Clock;
  private readonly requestState: RequestStateCodec = createRequestStateCodec();
  private readonly subscribers = new Set<{ taskIds: ReadonlySet<string>; listener: TaskListener }>();
  private readonly shutdown = new AbortController();
  private readonly runner: RunnerEnvironment;

  constructor(private readonly options: EngineOptions) {
    this.clock = options.clock;
    this.tools = toolMap(options.tools);
    this.store = new TaskStore(
      () => this.clock.now(),
      (record) => this.stopTimer(record),
    );
    this.runner = {
      now: () => this.clock.now(),
      onChange: (record) => this.publish(record),
      onScriptError: (_record, error) => this.options.onError?.(error),
    };
  }

  listTools(): ListedTool[] {
    return [...this.tools.values()].map((tool) => ({
      name: tool.name,
      ...(tool.title !== undefined && { title: tool.title }),
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: { type: "object", ...tool.inputSchema },
      ...(tool.outputSchema !== undefined && { outputSchema: { ...tool.outputSchema } }),
    }));
  }

  /**
   * Serves `tools` from now on in place of the list so far, then tells every watcher the list changed.
   * @throws {ToolDefinitionError} for a malformed definition or two tools of one name (nothing changes then).
   */
  setTools(tools: readonly ToolDefinition[]): void {
    this.tools = toolMap(tools);
    this.toolsChanged();
  }

  /** Tells every watcher the tool list changed (say, after a definition was edited in place). */
  toolsChanged(): void {
    for (const watcher of [...this.toolWatchers]) {
      try {
        watcher();
      } catch (error) {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  /** Calls `watcher` on each change of the tool list, until the returned function is called. */
  onToolsChanged(watcher: () => void): () => void {
    const entry = () => watcher();
    this.toolWatchers.add(entry);
    return () => this.toolWatchers.delete(entry);
  }

  callTool(
    request: Omit<ToolCallRequest, "signal"> & { signal?: AbortSignal },
  ): Promise<Record<string, unknown>> {
    const signal =
      request.signal === undefined
        ? this.shutdown.signal
        : AbortSignal.any([request.signal, this.shutdown.signal]);
    return handleToolCall(
      {
        tools: this.tools,
        clock: this.clock,
        requestState: this.requestState,
        createTask: (tool, args, responses) => this.createTask(tool, args, responses),
      },
      { ...request, signal },
    );
  }

  /** `tasks/get`: one poll. A poll-advanced script moves one step first. */
  getTask(taskId: string): DetailedTask {
    const record = this.store.lookup(taskId);
    record.polls++;
    if (record.advance === "poll") tick(record, this.runner);
    const armed = record.armedPollErrors.shift();
    if (armed !== undefined) throw new ProtocolError(armed.code, armed.message);
    return detailedTaskOf(record);
  }

  /**
   * `tasks/update`: take answers for outstanding keys and ignore the rest.
   * @throws {ProtocolError} `-32602` for an unknown task, missing `inputResponses`, or a malformed answer.
   */
  updateTask(
    taskId: string,
    given: Readonly<Record<string, unknown>> | undefined,
    dropped: readonly string[] = [],
  ): void {
    const record = this.store.lookup(taskId);
    if (given === undefined)
      throw new ProtocolError(ErrorCode.invalidParams, "Invalid params: tasks/update needs inputResponses");
    const outstanding = [...record.outstanding];
    const requests: InputRequests = Object.fromEntries(
      Object.entries(record.payload.inputRequests ?? {}).filter(([key]) => outstanding.includes(key)),
    );
    const answers = takeAnswers(requests, given, dropped);
    if (answer(record, answers, this.runner)) this.schedule(record);
  }

  /** `tasks/cancel`: cooperative; a tool with `onCancel: "ignore"` carries on. */
  cancelTask(taskId: string): void {
    requestCancel(this.store.lookup(taskId), this.runner);
  }

  /**
   * Subscribe to changes of the given tasks. Only live tasks are accepted; the listener hears every
   * visible change of an accepted task as a full `DetailedTask`.
   */
  /**
   * The ids worth pushing: tasks whose script moves on the clock. A poll-advanced task changes only when it is
   * polled, so acknowledging it would tell the client to stop the very polls that move it.
   */
  pushable(taskIds: readonly string[]): string[] {
    return taskIds.filter((taskId) => {
      const record = this.store.find(taskId);
      return record !== undefined && record.advance !== "poll";
    });
  }

  subscribe(taskIds: readonly string[], listener: TaskListener): { accepted: string[]; unsubscribe(): void } {
    const accepted = [...new Set(taskIds)].filter((taskId) => this.store.find(taskId) !== undefined);
    const subscriber = { taskIds: new Set(accepted), listener };
    this.subscribers.add(subscriber);
    return { accepted, unsubscribe: () => this.subscribers.delete(subscriber) };
  }

  /** Stop every timer, abort waiting synchronous calls, forget tasks and subscribers. */
  close(): void {
    this.shutdown.abort();
    this.store.clear();
    this.subscribers.clear();
    this.toolWatchers.clear();
  }

  /** The tool named `name`, if the server serves it. */
  findTool(name: unknown): ToolDefinition | undefined {
    return typeof name === "string" ? this.tools.get(name) : undefined;
  }

  /**
   * Store a new task for `tool` and start its script. The 2025-11-25 generation asks for a task in
   * `tools/call` itself, so its server creates tasks here; `ttlMs` overrides the tool's when given.
   */
  startTask(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    responses: Record<string, InputResponse>,
    ttlMs?: number | null,
  ): TaskRecord {
    const record = this.newRecord(tool, args, responses);
    if (ttlMs !== undefined) record.ttlMs = ttlMs;
    // Stored before the CreateTaskResult leaves, so an immediate tasks/get resolves.
    this.store.add(record);
    this.schedule(record);
    return record;
  }

  /** Apply one step of a poll-advanced script without counting a poll (a blocking `tasks/result` waits on it). */
  nudge(taskId: string): void {
    const record = this.store.find(taskId);
    if (record?.advance === "poll") tick(record, this.runner);
  }

  /** End a live task as failed with this error (its input could not be delivered, for example). */
  failTask(taskId: string, error: { code: number; message: string }): void {
    const record = this.store.find(taskId);
    if (record === undefined || isTerminal(record)) return;
    record.status = "failed";
    record.statusMessage = `Tool execution failed: ${error.message}`;
    record.payload = { error };
    record.outstanding.clear();
    record.lastUpdatedAtMs = this.clock.now();
    this.publish(record);
  }

  private createTask(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    responses: Record<string, InputResponse>,
  ): Record<string, unknown> {
    const record = this.newRecord(tool, args, responses);
    // Stored before the CreateTaskResult leaves, so an immediate tasks/get resolves.
    this.store.add(record);
    this.schedule(record);
    return createTaskResultOf(record);
  }

  private newRecord(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    responses: Record<string, InputResponse>,
  ): TaskRecord {
    const now = this.clock.now();
    const record: TaskRecord = {
      taskId: randomUUID(),
      tool,
      arguments: args,
      responses: { ...responses },
      steps: resolveSteps(tool, "steps", args),
      advance: resolveAdvance(tool, args),
      createdAtMs: now,
      status: "working",
      statusMessage: tool.statusMessage,
      lastUpdatedAtMs: now,
      ttlMs: tool.ttlMs === undefined ? TOOL_DEFAULTS.ttlMs : tool.ttlMs,
      pollIntervalMs: "pollIntervalMs" in tool ? tool.pollIntervalMs : TOOL_DEFAULTS.pollIntervalMs,
      payload: {},
      nextStep: 0,
      idleTicksLeft: 0,
      stalled: false,
      outstanding: new Set(),
      issuedKeys: new Set(),
      armedPollErrors: [],
      cancelRequested: false,
      polls: 0,
      timer: undefined,
    };
    return record;
  }

  /** Arm the next tick of a time-advanced script. */
  private schedule(record: TaskRecord): void {
    if (record.advance === "poll" || record.timer !== undefined || !canAdvance(record)) return;
    record.timer = this.clock.setTimeout(() => {
      record.timer = undefined;
      if (this.store.find(record.taskId) !== record) return;
      tick(record, this.runner);
      this.schedule(record);
    }, record.advance.everyMs);
  }

  private stopTimer(record: TaskRecord): void {
    if (record.timer === undefined) return;
    this.clock.clearTimeout(record.timer);
    record.timer = undefined;
  }

  private publish(record: TaskRecord): void {
    if (isTerminal(record)) this.stopTimer(record);
    if (this.subscribers.size === 0) return;
    const task = detailedTaskOf(record);
    for (const { taskIds, listener } of this.subscribers) {
      if (taskIds.has(record.taskId)) listener(task);
    }
  }
}

function toolMap(tools: readonly ToolDefinition[]): ReadonlyMap<string, ToolDefinition> {
  const map = new Map<string, ToolDefinition>();
  for (const tool of tools.map(defineTool)) {
    if (map.has(tool.name)) throw new ToolDefinitionError(`two tools are named "${tool.name}"`);
    map.set(tool.name, tool);
  }
  return map;
}
