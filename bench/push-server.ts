/**
 * The in-process tasks server of the push scenarios. Unlike `FakeTasksServer`, whose tasks move one step per
 * poll, here every task moves on the server's own clock: a fixed number of state changes, one every
 * `pollIntervalMs`, each task with its own phase so changes are spread evenly in time. That is what push is
 * for: the server knows when something changed, and a client can learn it by notification instead of by poll.
 *
 * It speaks the 2026-07-28 listen flow as the reference server does (src/testing/listen.ts): a
 * `subscriptions/listen` naming `notifications.taskIds` is answered on its own stream (here: the one
 * connection, as on stdio) with `notifications/subscriptions/acknowledged` listing the accepted ids, then one
 * `notifications/tasks` with the full detailed task per change, every message stamped with the listen's id in
 * `_meta["io.modelcontextprotocol/subscriptionId"]`. A listen without the tasks capability gets -32021; a
 * `notifications/cancelled` naming the listen ends it. The listen request itself is never answered while open.
 *
 * Recording storage is allocated in the constructor, before the heap baseline.
 */
import { BENCH_TOOL } from "./fake-server.js";

const PROTOCOL_VERSION = "2026-07-28";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const TASK_TTL_MS = 3_600_000;
/** The clock's resolution: the server wakes once a millisecond while any task is live. */
const TICK_MS = 1;

type Message = Record<string, unknown>;

export interface PushServerConfig {
  tasks: number;
  /** State changes per task after creation; the last one completes it. */
  changes: number;
  /** Time between two changes of one task, also advertised as `pollIntervalMs`. */
  pollIntervalMs: number;
}

interface Listen {
  id: string | number;
  open: boolean;
}

export class PushTasksServer {
  readonly requests = new Map<string, number>();
  pollsServed = 0;
  changesMade = 0;
  notificationsSent = 0;
  /** Called after every state change with the running count (the harness hangs its GC marks here). */
  onChange: ((changesMade: number) => void) | undefined;

  private push: ((message: Message) => void) | undefined;
  private readonly taskIds: string[];
  private readonly indexById: Map<string, number>;
  private created = 0;
  private live = 0;
  private readonly createdAtMs: Float64Array;
  private readonly step: Uint16Array;
  private readonly polls: Uint32Array;
  /** The highest step each task's state reached the client in (by answer or notification). */
  private readonly delivered: Int32Array;
  /** Distinct states (after creation) each task's client received. */
  private readonly observed: Uint16Array;
  private readonly doneAt: Float64Array;
  /** Per task, the listen that carries it (index into `listens`), or -1. */
  private readonly listenOf: Int32Array;
  private readonly listens: Listen[] = [];
  private readonly listenByKey = new Map<string, number>();
  /** Calendar of due changes: bucket = due millisecond modulo the ring size. */
  private readonly ring: number[][];
  private readonly dueAt: Float64Array;
  private clock: ReturnType<typeof setInterval> | undefined;
  private swept = 0;

  constructor(readonly config: PushServerConfig) {
    const { tasks } = config;
    this.taskIds = Array.from({ length: tasks }, () => crypto.randomUUID());
    this.indexById = new Map(this.taskIds.map((id, index) => [id, index]));
    this.createdAtMs = new Float64Array(tasks);
    this.step = new Uint16Array(tasks);
    this.polls = new Uint32Array(tasks);
    this.delivered = new Int32Array(tasks);
    this.observed = new Uint16Array(tasks);
    this.doneAt = new Float64Array(tasks).fill(Number.NaN);
    this.listenOf = new Int32Array(tasks).fill(-1);
    this.dueAt = new Float64Array(tasks);
    this.ring = Array.from({ length: Math.ceil(config.pollIntervalMs * 2) + 8 }, () => []);
  }

  /** The transport hands the server a way to write to the client outside any answer. */
  connect(push: (message: Message) => void): void {
    this.push = push;
  }

  handle(message: Message, arrivedAt: number): Message | undefined {
    const { id, method } = message;
    if (typeof method !== "string") return undefined;
    const params = (message.params ?? {}) as Message;
    if (id === undefined) {
      if (method === "notifications/cancelled") this.cancelListen(params["requestId"]);
      return undefined;
    }
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
    const outcome = this.answer(method, id as string | number, params, arrivedAt);
    if (outcome === undefined) return undefined;
    return "error" in outcome
      ? { jsonrpc: "2.0", id, error: outcome.error }
      : { jsonrpc: "2.0", id, result: outcome.result };
  }

  get tasksCreated(): number {
    return this.created;
  }

  pollsOf(task: number): number {
    return this.polls[task]!;
  }

  /** Distinct task states (after creation) that reached the client. */
  deliveredOf(task: number): number {
    return this.observed[task]!;
  }

  doneAtOf(task: number): number {
    return this.doneAt[task]!;
  }

  /** Listens ever opened. */
  get listensOpened(): number {
    return this.listens.length;
  }

  stop(): void {
    if (this.clock !== undefined) clearInterval(this.clock);
    this.clock = undefined;
  }

  private answer(
    method: string,
    id: string | number,
    params: Message,
    arrivedAt: number,
  ): { result: Message } | { error: Message } | undefined {
    switch (method) {
      case "server/discover":
        return {
          result: {
            resultType: "complete",
            supportedVersions: [PROTOCOL_VERSION],
            capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
            _meta: { [META_SERVER_INFO]: { name: "mcp-tasks-bench-push-server", version: "1.0.0" } },
          },
        };
      case "tools/list":
        return {
          result: { resultType: "complete", tools: [{ name: BENCH_TOOL, inputSchema: { type: "object" } }] },
        };
      case "tools/call":
        return this.createTask(params, arrivedAt);
      case "tasks/get":
        return this.getTask(params);
      case "subscriptions/listen":
        return this.openListen(id, params);
      case "tasks/cancel":
      case "tasks/update":
        return refuse(params, false) ?? { result: { resultType: "complete" } };
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private createTask(params: Message, arrivedAt: number): { result: Message } | { error: Message } {
    const refused = refuse(params, true);
    if (refused) return refused;
    if (this.created >= this.taskIds.length) return { error: { code: -32603, message: "capacity reached" } };
    const task = this.created++;
    this.live++;
    this.createdAtMs[task] = Date.now();
    // Phases spread evenly over one interval, so changes arrive at a steady rate rather than in bursts.
    const phase = (task / this.config.tasks) * this.config.pollIntervalMs;
    this.schedule(task, arrivedAt + this.config.pollIntervalMs / 2 + phase);
    this.clock ??= setInterval(() => this.tick(), TICK_MS);
    return { result: { resultType: "task", ...this.state(task) } };
  }

  private getTask(params: Message): { result: Message } | { error: Message } {
    const refused = refuse(params, false);
    if (refused) return refused;
    const task = this.taskOf(params["taskId"]);
    if (task === undefined) return { error: { code: -32602, message: "Unknown or expired task" } };
    this.polls[task]!++;
    this.pollsServed++;
    this.deliver(task);
    return { result: { resultType: "complete", ...this.state(task) } };
  }

  private openListen(id: string | number, params: Message): { error: Message } | undefined {
    const refused = refuse(params, true);
    if (refused) return refused;
    const taskIds = (params["notifications"] as { taskIds?: unknown } | undefined)?.taskIds;
    if (!Array.isArray(taskIds)) {
      return { error: { code: -32602, message: "Invalid params: notifications.taskIds must be an array" } };
    }
    const slot = this.listens.push({ id, open: true }) - 1;
    this.listenByKey.set(String(id), slot);
    const accepted: string[] = [];
    for (const taskId of taskIds) {
      const task = this.taskOf(taskId);
      if (task === undefined) continue;
      this.listenOf[task] = slot;
      accepted.push(taskId as string);
    }
    this.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: accepted }, _meta: { [META_SUBSCRIPTION_ID]: id } },
    });
    return undefined; // the listen stays open: no answer until it ends
  }

  private cancelListen(requestId: unknown): void {
    const slot = this.listenByKey.get(String(requestId));
    if (slot === undefined) return;
    this.listens[slot]!.open = false;
    this.listenByKey.delete(String(requestId));
  }

  /* ---- The clock ----------------------------------------------------------------------------------- */

  private schedule(task: number, at: number): void {
    this.dueAt[task] = at;
    this.ring[Math.floor(at) % this.ring.length]!.push(task);
  }

  private tick(): void {
    const now = performance.now();
    const until = Math.floor(now);
    if (this.swept === 0) this.swept = until - this.ring.length + 1;
    for (let ms = Math.max(this.swept, until - this.ring.length + 1); ms <= until; ms++) {
      const bucket = this.ring[ms % this.ring.length]!;
      if (bucket.length === 0) continue;
      const due = bucket.splice(0);
      for (const task of due) {
        if (this.dueAt[task]! > now)
          bucket.push(task); // a lap ahead: not yet
        else this.change(task);
      }
    }
    this.swept = until + 1;
    if (this.live === 0) this.stop();
  }

  private change(task: number): void {
    const step = ++this.step[task]!;
    const changedAt = performance.now();
    if (step >= this.config.changes) {
      this.doneAt[task] = changedAt;
      this.live--;
    } else {
      this.schedule(task, this.dueAt[task]! + this.config.pollIntervalMs);
    }
    this.changesMade++;
    const slot = this.listenOf[task]!;
    if (slot >= 0 && this.listens[slot]!.open) {
      const listen = this.listens[slot]!;
      this.notificationsSent++;
      this.deliver(task);
      this.send({
        jsonrpc: "2.0",
        method: "notifications/tasks",
        params: { ...this.state(task), _meta: { [META_SUBSCRIPTION_ID]: listen.id } },
      });
    }
    this.onChange?.(this.changesMade);
  }

  /* ---- Task state ---------------------------------------------------------------------------------- */

  private state(task: number): Message {
    const step = this.step[task]!;
    const done = step >= this.config.changes;
    const fields: Message = {
      taskId: this.taskIds[task],
      status: done ? "completed" : "working",
      statusMessage: done ? "done" : `step ${step}`,
      createdAt: new Date(this.createdAtMs[task]!).toISOString(),
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: this.config.pollIntervalMs,
    };
    if (done) {
      // structuredContent carries the task index so the harness can match each resolved call to its task.
      fields["result"] = {
        resultType: "complete",
        content: [{ type: "text", text: `task ${task} done` }],
        structuredContent: { task },
      };
    }
    return fields;
  }

  private deliver(task: number): void {
    const step = this.step[task]!;
    if (step <= this.delivered[task]!) return;
    this.delivered[task] = step;
    this.observed[task]!++;
  }

  private send(message: Message): void {
    this.push?.(message);
  }

  private taskOf(taskId: unknown): number | undefined {
    return typeof taskId === "string" ? this.indexById.get(taskId) : undefined;
  }
}

/** The same envelope rules as `FakeTasksServer`; the listen, like `tools/call`, needs the tasks capability. */
function refuse(params: Message, needsTasksCapability: boolean): { error: Message } | undefined {
  const meta = params["_meta"] as Message | undefined;
  if (meta?.[META_PROTOCOL_VERSION] !== PROTOCOL_VERSION) {
    return { error: { code: -32600, message: "Missing or unsupported protocolVersion in _meta" } };
  }
  if (!needsTasksCapability) return undefined;
  const capabilities = meta[META_CLIENT_CAPABILITIES] as { extensions?: Message } | undefined;
  if (capabilities?.extensions?.[TASKS_EXTENSION] === undefined) {
    return {
      error: {
        code: -32021,
        message: "Missing required client capability",
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    };
  }
  return undefined;
}
