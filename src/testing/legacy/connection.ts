/**
 * One 2025-11-25 connection: a v1 SDK `Server` over the shared engine. The SDK negotiates (`initialize`,
 * capability `tasks`), checks task augmentation against the capability, and serves `tasks/list` and
 * `tasks/cancel` from the engine through {@link EngineTaskStore}. `tools/list`, `tools/call`, `tasks/get`
 * (which moves poll-advanced scripts and fires scripted poll errors) and `tasks/result` (which blocks, and
 * carries the task's input requests on its stream) are served here.
 */
import type { Server as LegacyServer } from "@modelcontextprotocol/sdk/server/index.js";
import * as z from "zod/v4";
import type { Implementation } from "@modelcontextprotocol/server";
import type { InputResponse } from "../../schema/index.js";
import { ProtocolError } from "../load-server-sdk.js";
import type { Clock } from "../clock.js";
import type { NotificationLog } from "../notification-log.js";
import { ErrorCode } from "../constants.js";
import type { TaskEngine } from "../engine.js";
import { runSynchronously } from "../sync-runner.js";
import type { ToolCall } from "../steps.js";
import { isTerminal } from "../task-record.js";
import { resolveAdvance, resolveSteps, TOOL_DEFAULTS } from "../tool.js";
import type { InputRelay, SendInput } from "./input-relay.js";
import { askWithoutTask } from "./input-relay.js";
import type { LegacySdk } from "./sdk.js";
import { EngineTaskStore } from "./task-store-adapter.js";
import { legacyResultOf, legacyTaskOf, legacyTaskSupport } from "./wire.js";

export interface LegacyCore {
  readonly sdk: LegacySdk;
  readonly engine: TaskEngine;
  readonly relay: InputRelay;
  readonly clock: Clock;
  readonly serverInfo: Implementation;
  readonly pageSize: number;
  readonly reportError: (error: Error) => void;
  /** Where each `notifications/tasks/status` is recorded as it is sent. */
  readonly sent: NotificationLog;
  /** Aborted when the server closes: ends blocking `tasks/result` waits and running calls. */
  readonly shutdownSignal: AbortSignal;
}

const anyResult = z.looseObject({});

/** How long a blocking `tasks/result` sleeps between looks at a task: its poll interval, kept sane. */
function waitMsOf(pollIntervalMs: number | undefined): number {
  const ms = pollIntervalMs ?? TOOL_DEFAULTS.pollIntervalMs;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 10), 60_000) : TOOL_DEFAULTS.pollIntervalMs;
}

/** Resolves on the task's next change ("changed") or after `ms` ("timeout"); rejects when aborted. */
function nextChange(
  core: LegacyCore,
  taskId: string,
  ms: number,
  signal: AbortSignal,
): Promise<"changed" | "timeout"> {
  return new Promise((resolve, reject) => {
    const done = (outcome: "changed" | "timeout" | Error) => {
      core.clock.clearTimeout(timer);
      subscription.unsubscribe();
      signal.removeEventListener("abort", onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = () => done(new ProtocolError(ErrorCode.internalError, "The request was aborted"));
    const subscription = core.engine.subscribe([taskId], () => done("changed"));
    const timer = core.clock.setTimeout(() => done("timeout"), ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

function argumentsOf(value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ProtocolError(ErrorCode.invalidParams, "Invalid params: arguments must be an object");
  }
  return value as Record<string, unknown>;
}

export function createLegacyServer(core: LegacyCore): LegacyServer {
  const { sdk, engine } = core;
  const server = new sdk.Server(core.serverInfo, {
    capabilities: {
      tools: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    taskStore: new EngineTaskStore(engine, core.pageSize),
  });
  const watched = new Map<string, () => void>();

  /** Push `notifications/tasks/status` for every change of a task this connection created. */
  function watch(taskId: string): void {
    const subscription = engine.subscribe([taskId], () => {
      const record = engine.store.find(taskId);
      if (record === undefined) return;
      const params = legacyTaskOf(record) as unknown as Record<string, unknown>;
      core.sent.record(undefined, { method: "notifications/tasks/status", params }, core.clock.now());
      server
        .notification({ method: "notifications/tasks/status", params })
        .catch((error: Error) => core.reportError(error));
      if (isTerminal(record)) {
        subscription.unsubscribe();
        watched.delete(taskId);
      }
    });
    watched.set(taskId, subscription.unsubscribe);
  }
  // A changed tool list is announced to every connection (over HTTP on its GET stream, when one is open).
  const unwatchTools = engine.onToolsChanged(() => {
    const method = "notifications/tools/list_changed";
    core.sent.record(undefined, { method }, core.clock.now());
    server.sendToolListChanged().catch((error: Error) => core.reportError(error));
  });
  server.onclose = () => {
    unwatchTools();
    for (const unsubscribe of watched.values()) unsubscribe();
    watched.clear();
  };

  const sendOn =
    (requestId: string | number): SendInput =>
    (request) =>
      server.request(request as never, anyResult, { relatedRequestId: requestId });

  server.setRequestHandler(sdk.types.ListToolsRequestSchema, () => ({
    tools: engine.listTools().map((listed) => ({
      ...listed,
      inputSchema: listed.inputSchema as { type: "object" },
      execution: { taskSupport: legacyTaskSupport(engine.findTool(listed.name)?.task) },
    })),
  }));

  server.setRequestHandler(sdk.types.CallToolRequestSchema, async (request, extra) => {
    const { name, task } = request.params;
    const tool = engine.findTool(name);
    if (tool === undefined) throw new ProtocolError(ErrorCode.invalidParams, `Unknown tool: ${name}`);
    const support = legacyTaskSupport(tool.task);
    if (task !== undefined && support === "forbidden") {
      throw new ProtocolError(
        ErrorCode.methodNotFound,
        `Tool ${name} does not support task augmentation (taskSupport: forbidden)`,
      );
    }
    if (task === undefined && support === "required") {
      throw new ProtocolError(
        ErrorCode.methodNotFound,
        `Tool ${name} requires task augmentation (taskSupport: required)`,
      );
    }
    const args = argumentsOf(request.params.arguments);
    const steps =
      task === undefined
        ? [...resolveSteps(tool, "beforeTask", args), ...resolveSteps(tool, "steps", args)]
        : resolveSteps(tool, "beforeTask", args);
    const responses: Record<string, InputResponse> = {};
    const signal = AbortSignal.any([extra.signal, core.shutdownSignal]);
    // Each round that asks for input is answered on this call's stream; the steps bound the loop.
    for (let start = 0; start <= steps.length;) {
      const call: ToolCall = {
        name: tool.name,
        arguments: args,
        responses,
        taskId: undefined,
        cancelRequested: false,
      };
      const outcome = await runSynchronously(steps, start, call, {
        clock: core.clock,
        advance: resolveAdvance(tool, args),
        signal,
      });
      if (outcome.kind === "result") return outcome.result;
      if (outcome.kind === "exhausted") break;
      Object.assign(responses, await askWithoutTask(outcome.inputRequests, sendOn(extra.requestId)));
      start = outcome.index + 1;
    }
    if (task === undefined) {
      throw new ProtocolError(
        ErrorCode.internalError,
        `Tool "${tool.name}" ended its script without a result`,
      );
    }
    const record = engine.startTask(tool, args, { ...responses }, task.ttl);
    watch(record.taskId);
    return { task: legacyTaskOf(record) } as never;
  });

  server.setRequestHandler(sdk.types.GetTaskRequestSchema, (request) => {
    const { taskId } = request.params;
    engine.getTask(taskId);
    return legacyTaskOf(engine.store.lookup(taskId)) as never;
  });

  server.setRequestHandler(sdk.types.GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const signal = AbortSignal.any([extra.signal, core.shutdownSignal]);
    // Ends when the task ends, expires (lookup throws), or the request is aborted or the server closes.
    for (;;) {
      const record = engine.store.lookup(taskId);
      if (isTerminal(record)) {
        core.relay.forget(taskId);
        return legacyResultOf(record) as never;
      }
      if (record.status === "input_required") core.relay.deliver(record, sendOn(extra.requestId));
      const outcome = await nextChange(core, taskId, waitMsOf(record.pollIntervalMs), signal);
      if (outcome === "timeout") engine.nudge(taskId);
    }
  });

  return server;
}
