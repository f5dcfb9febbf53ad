/**
 * The in-process server of the 2025-11-25 scenario: the same tasks, the same completion model and the same
 * server-side record as `FakeTasksServer`, spoken the 2025-11-25 way. `server/discover` is not a method here
 * (-32601, which every library reads as "a 2025-era server"); the session opens with `initialize`
 * (protocol 2025-11-25, capability `tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} }`);
 * `tools/list` marks the tool `execution.taskSupport: "required"`; a `tools/call` carrying `params.task`
 * answers a `CreateTaskResult` (`{ task: { taskId, status, createdAt, lastUpdatedAt, ttl, pollInterval } }`);
 * `tasks/get` answers the flat task; `tasks/result` answers the tool's `CallToolResult` once the task is
 * terminal; `tasks/list` and `tasks/cancel` exist because the capability offers them.
 *
 * It refuses a `tools/call` without `params.task` (-32601, as the 2025-11-25 spec has a server answer a
 * required-task tool called plainly) and any task request before `initialize`, so no library can look fast by
 * skipping the protocol. Only `tasks/get` counts as a poll; `tasks/result` is one more round trip per task.
 */
import { BENCH_TOOL, FakeTasksServer } from "./fake-server.js";

const PROTOCOL_VERSION = "2025-11-25";
const RELATED_TASK_META = "io.modelcontextprotocol/related-task";
const TASK_TTL_MS = 3_600_000;
const LIST_PAGE_SIZE = 100;

type Message = Record<string, unknown>;
type Answer = { result: Message } | { error: Message };

export class LegacyTasksServer extends FakeTasksServer {
  private initialized = false;

  protected override answer(method: string, params: Message, arrivedAt: number): Answer {
    if (method === "initialize") {
      this.initialized = true;
      return { result: initializeResult() };
    }
    if (method === "ping") return { result: {} };
    if (method === "server/discover") {
      return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
    if (!this.initialized) return { error: { code: -32600, message: "Server not initialized" } };
    switch (method) {
      case "tools/list":
        return { result: { tools: [benchTool()] } };
      case "tools/call":
        return this.createLegacyTask(params, arrivedAt);
      case "tasks/get":
        return this.getLegacyTask(params, arrivedAt);
      case "tasks/result":
        return this.resultOf(params);
      case "tasks/cancel":
        return this.cancelLegacyTask(params);
      case "tasks/list":
        return this.listTasks(params);
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private createLegacyTask(params: Message, arrivedAt: number): Answer {
    if (typeof params.task !== "object" || params.task === null) {
      return { error: { code: -32601, message: `Tool ${BENCH_TOOL} requires task augmentation` } };
    }
    if (this.created >= this.taskIds.length)
      return { error: { code: -32603, message: "task capacity reached" } };
    const task = this.created++;
    this.createdAtMs[task] = Date.now();
    this.record(task, arrivedAt);
    return { result: { task: this.legacyTask(task, "working", "queued") } };
  }

  private getLegacyTask(params: Message, arrivedAt: number): Answer {
    const task = this.taskOf(params);
    if (task === undefined) return { error: { code: -32602, message: "Unknown or expired task" } };
    this.record(task, arrivedAt);
    this.pollsServed++;
    this.onPoll?.(this.pollsServed);
    if (arrivedAt >= this.doneAt[task]!) return { result: this.legacyTask(task, "completed", "done") };
    const step = ++this.workingAnswers[task]!;
    // The same completion model as FakeTasksServer: done half an interval after the last working answer.
    if (step === this.config.pollsUntilDone) this.doneAt[task] = arrivedAt + this.config.pollIntervalMs / 2;
    return { result: this.legacyTask(task, "working", `step ${step}`) };
  }

  private resultOf(params: Message): Answer {
    const task = this.taskOf(params);
    if (task === undefined) return { error: { code: -32602, message: "Unknown or expired task" } };
    // Asked before the task is terminal, a real server would block; no library here does, so it is refused.
    if (!(performance.now() >= this.doneAt[task]!)) {
      return { error: { code: -32600, message: "tasks/result before the task is terminal" } };
    }
    return {
      result: {
        content: [{ type: "text", text: `task ${task} done` }],
        // The task index lets the harness match each resolved call to its task.
        structuredContent: { task },
        _meta: { [RELATED_TASK_META]: { taskId: this.taskIds[task] } },
      },
    };
  }

  private cancelLegacyTask(params: Message): Answer {
    const task = this.taskOf(params);
    if (task === undefined) return { error: { code: -32602, message: "Unknown or expired task" } };
    return { result: this.legacyTask(task, "cancelled", "cancelled") };
  }

  private listTasks(params: Message): Answer {
    const start = typeof params.cursor === "string" ? Number(params.cursor) : 0;
    const end = Math.min(this.created, start + LIST_PAGE_SIZE);
    const tasks: Message[] = [];
    const now = performance.now();
    for (let task = start; task < end; task++) {
      tasks.push(this.legacyTask(task, now >= this.doneAt[task]! ? "completed" : "working", "listed"));
    }
    return { result: end < this.created ? { tasks, nextCursor: String(end) } : { tasks } };
  }

  /** A 2025-11-25 `Task`: `ttl` and `pollInterval` in milliseconds, under their 2025 names. */
  private legacyTask(task: number, status: string, statusMessage: string): Message {
    return {
      taskId: this.taskIds[task],
      status,
      statusMessage,
      createdAt: new Date(this.createdAtMs[task]!).toISOString(),
      lastUpdatedAt: new Date().toISOString(),
      ttl: TASK_TTL_MS,
      pollInterval: this.config.pollIntervalMs,
    };
  }
}

function initializeResult(): Message {
  return {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {
      tools: {},
      tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} },
    },
    serverInfo: { name: "mcp-tasks-bench-server-2025", version: "1.0.0" },
  };
}

function benchTool(): Message {
  return { name: BENCH_TOOL, inputSchema: { type: "object" }, execution: { taskSupport: "required" } };
}
