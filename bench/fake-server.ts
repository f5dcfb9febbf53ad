/**
 * The one tasks server both libraries are measured against. It lives in the benchmark process, answers the
 * 2026-07-28 tasks flow (`server/discover`, `tools/list`, `tools/call` → task, `tasks/get`, `tasks/cancel`,
 * `tasks/update`) and keeps the server-side record the figures are computed from: when each task was
 * created and polled, and when it finished. Neither library can see into it; they only exchange JSON-RPC
 * messages with it through `FakeTransport`.
 *
 * Every storage it records into is allocated in the constructor, before the benchmark takes its heap
 * baseline, so the harness's own bookkeeping never counts as library memory.
 *
 * `LegacyTasksServer` (bench/legacy-server.ts) speaks the same tasks the 2025-11-25 way; what it shares is
 * `protected`.
 */

const PROTOCOL_VERSION = "2026-07-28";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
const TASK_TTL_MS = 3_600_000;
/** Room for polls beyond the ideal count (early or duplicate polls) before contacts stop being recorded. */
const EXTRA_CONTACT_SLOTS = 16;

export const BENCH_TOOL = "bench_work";

export interface FakeServerConfig {
  /** How many tasks the run will create at most. */
  tasks: number;
  /** `working` answers a task gives before it finishes. */
  pollsUntilDone: number;
  /** Sent as `pollIntervalMs` on the creation answer and on every `tasks/get` answer. */
  pollIntervalMs: number;
}

type Message = Record<string, unknown>;

export class FakeTasksServer {
  /** Requests answered by method, for the report. */
  readonly requests = new Map<string, number>();
  /** `tasks/get` requests answered so far. */
  pollsServed = 0;
  /** Called after every counted `tasks/get`, with the running count (the harness hangs its GC marks here). */
  onPoll: ((pollsServed: number) => void) | undefined;

  protected readonly taskIds: string[];
  protected readonly indexById: Map<string, number>;
  protected created = 0;
  protected readonly createdAtMs: Float64Array;
  protected readonly workingAnswers: Uint32Array;
  /** Per task, one row: [creation arrival, poll 1 arrival, poll 2 arrival, ...]. */
  private readonly contacts: Float64Array;
  private readonly contactCount: Uint32Array;
  /** Per task, when it finished on the server (NaN while it works). */
  protected readonly doneAt: Float64Array;
  private readonly rowLength: number;

  constructor(readonly config: FakeServerConfig) {
    const { tasks } = config;
    this.taskIds = Array.from({ length: tasks }, () => crypto.randomUUID());
    this.indexById = new Map(this.taskIds.map((id, index) => [id, index]));
    this.createdAtMs = new Float64Array(tasks);
    this.workingAnswers = new Uint32Array(tasks);
    this.rowLength = config.pollsUntilDone + 2 + EXTRA_CONTACT_SLOTS;
    this.contacts = new Float64Array(tasks * this.rowLength);
    this.contactCount = new Uint32Array(tasks);
    this.doneAt = new Float64Array(tasks).fill(Number.NaN);
  }

  /** Answers one client message that arrived at `arrivedAt` (performance.now()); undefined for notifications. */
  handle(message: Message, arrivedAt: number): Message | undefined {
    const { id, method } = message;
    if (id === undefined || typeof method !== "string") return undefined;
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
    const params = (message.params ?? {}) as Message;
    const outcome = this.answer(method, params, arrivedAt);
    return "error" in outcome
      ? { jsonrpc: "2.0", id, error: outcome.error }
      : { jsonrpc: "2.0", id, result: outcome.result };
  }

  /** Tasks created so far. */
  get tasksCreated(): number {
    return this.created;
  }

  /** Arrival times of a task's contacts: creation first, then every `tasks/get` recorded. */
  contactsOf(task: number): Float64Array {
    const start = task * this.rowLength;
    return this.contacts.subarray(start, start + Math.min(this.contactCount[task]!, this.rowLength));
  }

  /** `tasks/get` requests a task received, including any that did not fit the recording row. */
  pollsOf(task: number): number {
    return Math.max(0, this.contactCount[task]! - 1);
  }

  /** When the task finished on the server, or NaN if it has not. */
  doneAtOf(task: number): number {
    return this.doneAt[task]!;
  }

  /** The task index the server assigned to a task id (drivers use it to file their own timings). */
  indexOf(taskId: string): number | undefined {
    return this.indexById.get(taskId);
  }

  protected answer(
    method: string,
    params: Message,
    arrivedAt: number,
  ): { result: Message } | { error: Message } {
    switch (method) {
      case "server/discover":
        return { result: discoverResult() };
      case "tools/list":
        return {
          result: { resultType: "complete", tools: [{ name: BENCH_TOOL, inputSchema: { type: "object" } }] },
        };
      case "tools/call":
        return this.createTask(params, arrivedAt);
      case "tasks/get":
        return this.getTask(params, arrivedAt);
      case "tasks/cancel":
      case "tasks/update":
        return this.acknowledge(params);
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private createTask(params: Message, arrivedAt: number): { result: Message } | { error: Message } {
    const refused = refuseEnvelope(params, true);
    if (refused) return { error: refused };
    if (this.created >= this.taskIds.length)
      return { error: { code: -32603, message: "task capacity reached" } };
    const task = this.created++;
    this.createdAtMs[task] = Date.now();
    this.record(task, arrivedAt);
    return { result: { resultType: "task", ...this.taskFields(task, "working", "queued") } };
  }

  private getTask(params: Message, arrivedAt: number): { result: Message } | { error: Message } {
    const refused = refuseEnvelope(params, false);
    if (refused) return { error: refused };
    const task = this.taskOf(params);
    if (task === undefined) return { error: { code: -32602, message: "Unknown or expired task" } };
    this.record(task, arrivedAt);
    this.pollsServed++;
    this.onPoll?.(this.pollsServed);
    const doneAt = this.doneAt[task]!;
    if (arrivedAt >= doneAt) {
      // structuredContent carries the task index so the harness can match each resolved call to its task.
      const result = {
        resultType: "complete",
        content: [{ type: "text", text: `task ${task} done` }],
        structuredContent: { task },
      };
      return { result: { resultType: "complete", ...this.taskFields(task, "completed", "done"), result } };
    }
    const step = ++this.workingAnswers[task]!;
    // The task finishes half an advertised interval after its last working answer. A poller that keeps to
    // the interval (within ±50 %, so jitter is not punished) sees `completed` on its next poll: ideal polls
    // are polls-until-done + 1, ideal latency is half an interval, and any lateness adds to it.
    if (step === this.config.pollsUntilDone) this.doneAt[task] = arrivedAt + this.config.pollIntervalMs / 2;
    return { result: { resultType: "complete", ...this.taskFields(task, "working", `step ${step}`) } };
  }

  private acknowledge(params: Message): { result: Message } | { error: Message } {
    const refused = refuseEnvelope(params, false);
    if (refused) return { error: refused };
    if (this.taskOf(params) === undefined)
      return { error: { code: -32602, message: "Unknown or expired task" } };
    return { result: { resultType: "complete" } };
  }

  private taskFields(task: number, status: string, statusMessage: string): Message {
    return {
      taskId: this.taskIds[task],
      status,
      statusMessage,
      createdAt: new Date(this.createdAtMs[task]!).toISOString(),
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: this.config.pollIntervalMs,
    };
  }

  protected taskOf(params: Message): number | undefined {
    return typeof params.taskId === "string" ? this.indexById.get(params.taskId) : undefined;
  }

  protected record(task: number, arrivedAt: number): void {
    const count = this.contactCount[task]!;
    if (count < this.rowLength) this.contacts[task * this.rowLength + count] = arrivedAt;
    this.contactCount[task] = count + 1;
  }
}

function discoverResult(): Message {
  return {
    resultType: "complete",
    supportedVersions: [PROTOCOL_VERSION],
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    _meta: { [META_SERVER_INFO]: { name: "mcp-tasks-bench-server", version: "1.0.0" } },
  };
}

/**
 * The server insists on the 2026-07-28 envelope, so a library that forgot it would fail the run rather than
 * look fast; `tools/call` must also declare the tasks extension before a task may be created.
 */
function refuseEnvelope(params: Message, needsTasksCapability: boolean): Message | undefined {
  const meta = params._meta as Message | undefined;
  if (meta?.[META_PROTOCOL_VERSION] !== PROTOCOL_VERSION) {
    return {
      code: -32600,
      message: "Missing or unsupported io.modelcontextprotocol/protocolVersion in _meta",
    };
  }
  if (!needsTasksCapability) return undefined;
  const capabilities = meta[META_CLIENT_CAPABILITIES] as { extensions?: Message } | undefined;
  if (capabilities?.extensions?.[TASKS_EXTENSION] === undefined) {
    return { code: -32021, message: "The client did not declare the tasks extension" };
  }
  return undefined;
}
