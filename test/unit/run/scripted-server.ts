/**
 * A scripted MCP server behind an in-memory Transport, for driving a real `TaskClient` under fake timers. Each
 * JSON-RPC request is answered on a microtask (or after a fake-time delay) from a per-method script, and every
 * request is recorded with its arrival time, so tests can measure the client's cadence exactly.
 */
import { afterEach, beforeEach, vi } from "vitest";
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import type { McpTransport, OutgoingMessage } from "../../../src/session/types.js";

/** A long, distinctive id, so a test can tell whether it leaked whole into a message. */
export const TASK_ID = "task-5b1e9c0d-7a44-4f2e-9d7c-secret";

/** Fake "now" at the start of every test. */
export const START = Date.UTC(2026, 7, 1, 10, 0, 0);

/** A request as the server received it. `at` is milliseconds since the test's start, in fake time. */
export interface WireRequest {
  id: string;
  method: string;
  params: Record<string, unknown>;
  at: number;
}

/** How the server answers one request. */
export type Reply =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } }
  /** `send()` rejects with this (a transport failure: nothing reached the server). */
  | { throws: unknown }
  /** `send()` rejects with this after that many (fake) milliseconds (a request that failed while in flight). */
  | { rejectsAfterMs: number; error: unknown }
  /** No answer ever arrives. */
  | { silent: true }
  /** The reply comes this many (fake) milliseconds later. */
  | { afterMs: number; reply: Reply }
  /** The reply arrives inside `send()`, before it returns (a transport that answers synchronously). */
  | { atOnce: Reply };

export type Script = (request: WireRequest) => Reply;

const DISCOVER = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "1.0.0" } },
};

export class ScriptedServer implements McpTransport {
  /** Every request the client sent, discovery included, in arrival order. */
  readonly requests: WireRequest[] = [];
  /** Every notification the client sent. */
  readonly notifications: string[] = [];
  /** The most requests of each method that were awaiting an answer at once. */
  readonly peakInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly scripts = new Map<string, Script>();
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(scripts: Record<string, Script> = {}) {
    this.scripts.set("server/discover", () => ({ result: DISCOVER }));
    this.scripts.set("tasks/cancel", () => ({ result: {} }));
    for (const [method, script] of Object.entries(scripts)) this.scripts.set(method, script);
  }

  /** Replaces how `method` is answered from now on. */
  on(method: string, script: Script): this {
    this.scripts.set(method, script);
    return this;
  }

  async start(): Promise<void> {}

  async send(message: OutgoingMessage): Promise<void> {
    const frame = message as { id?: string; method?: string; params?: Record<string, unknown> };
    if (frame.method === undefined) return; // an answer to a server request; this server sends none
    if (frame.id === undefined) {
      this.notifications.push(frame.method);
      return;
    }
    const request: WireRequest = {
      id: frame.id,
      method: frame.method,
      params: frame.params ?? {},
      at: Date.now() - START,
    };
    this.requests.push(request);
    const script = this.scripts.get(request.method);
    const reply: Reply = script
      ? script(request)
      : { error: { code: -32601, message: `Method not found: ${request.method}` } };
    if ("throws" in reply) throw reply.throws;
    if ("rejectsAfterMs" in reply) {
      this.track(request.method, +1);
      await new Promise((resolve) => setTimeout(resolve, reply.rejectsAfterMs));
      this.track(request.method, -1);
      throw reply.error;
    }
    this.track(request.method, +1);
    this.deliver(request, reply);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Requests of one method. */
  sent(method: string): WireRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Arrival times of one method's requests. */
  times(method: string): number[] {
    return this.sent(method).map((request) => request.at);
  }

  private deliver(request: WireRequest, reply: Reply): void {
    if ("silent" in reply || "rejectsAfterMs" in reply) return;
    if ("afterMs" in reply) {
      setTimeout(() => this.deliver(request, reply.reply), reply.afterMs);
      return;
    }
    if ("atOnce" in reply) {
      this.answer(request, reply.atOnce);
      return;
    }
    queueMicrotask(() => this.answer(request, reply));
  }

  private answer(request: WireRequest, reply: Reply): void {
    this.track(request.method, -1);
    if (!("result" in reply || "error" in reply)) return;
    const answer = "result" in reply ? { result: reply.result } : { error: reply.error };
    this.onmessage?.({ jsonrpc: "2.0", id: request.id, ...answer });
  }

  private track(method: string, change: number): void {
    const now = (this.inFlight.get(method) ?? 0) + change;
    this.inFlight.set(method, now);
    this.peakInFlight.set(method, Math.max(this.peakInFlight.get(method) ?? 0, now));
  }
}

/** Answers in order, then repeats the last reply forever. */
export function inOrder(...replies: Array<Reply | ((request: WireRequest) => Reply)>): Script {
  let next = 0;
  return (request) => {
    const reply = replies[Math.min(next++, replies.length - 1)];
    if (reply === undefined) throw new Error("inOrder needs at least one reply");
    return typeof reply === "function" ? reply(request) : reply;
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export interface TaskFields {
  taskId?: string;
  pollIntervalMs?: number | undefined;
  ttlMs?: number | null;
  statusMessage?: string;
  /** Milliseconds after START the task was created. Default 0. */
  createdAfterMs?: number;
}

function taskBase(fields: TaskFields): Record<string, unknown> {
  const base: Record<string, unknown> = {
    taskId: fields.taskId ?? TASK_ID,
    createdAt: iso(START + (fields.createdAfterMs ?? 0)),
    lastUpdatedAt: iso(Date.now()),
    ttlMs: fields.ttlMs === undefined ? null : fields.ttlMs,
  };
  if (!("pollIntervalMs" in fields)) base.pollIntervalMs = 1000;
  else if (fields.pollIntervalMs !== undefined) base.pollIntervalMs = fields.pollIntervalMs;
  if (fields.statusMessage !== undefined) base.statusMessage = fields.statusMessage;
  return base;
}

export function textResult(text: string): Record<string, unknown> {
  return { content: [{ type: "text", text }] };
}

/** Frames of one task as the scripted server sends them. */
export const frame = {
  /** A `CreateTaskResult` (status `working` unless given). */
  created: (fields: TaskFields & { status?: string } = {}): Reply => ({
    result: { resultType: "task", ...taskBase(fields), status: fields.status ?? "working" },
  }),
  working: (fields: TaskFields = {}): Reply => ({
    result: { resultType: "complete", ...taskBase(fields), status: "working" },
  }),
  completed: (text = "done", fields: TaskFields = {}): Reply => ({
    result: { resultType: "complete", ...taskBase(fields), status: "completed", result: textResult(text) },
  }),
  failed: (code: number, message: string, fields: TaskFields = {}): Reply => ({
    result: { resultType: "complete", ...taskBase(fields), status: "failed", error: { code, message } },
  }),
  /** Status `input_required`, asking for `inputRequests` (key → request). */
  inputRequired: (inputRequests: Record<string, unknown>, fields: TaskFields = {}): Reply => ({
    result: { resultType: "complete", ...taskBase(fields), status: "input_required", inputRequests },
  }),
  /** The empty acknowledgement of `tasks/update` or `tasks/cancel`. */
  ack: (): Reply => ({ result: { resultType: "complete" } }),
  cancelled: (fields: TaskFields = {}): Reply => ({
    result: { resultType: "complete", ...taskBase(fields), status: "cancelled" },
  }),
  rpcError: (code: number, message: string, data?: unknown): Reply => ({
    error: { code, message, ...(data !== undefined && { data }) },
  }),
};

/** Connects a client to the scripted server with settings that keep the numbers in tests readable. */
export async function connect(server: ScriptedServer, options: TaskClientOptions = {}): Promise<TaskClient> {
  // These tests are about polling: a scripted server answers no listen, so notifications are off by default.
  const client = await TaskClient.connect(server, {
    notifications: "off",
    ...options,
    polling: { jitter: 0, ...options.polling },
  });
  connected.add(client);
  return client;
}

/** Clients made by `connect` in the current test; `useFakeTime` closes them after it. */
const connected = new Set<TaskClient>();

/**
 * For every test of the calling file: fake timers with the clock at `START`, and afterwards every client
 * `connect` made is closed, mocks are restored and real timers come back.
 */
export function useFakeTime(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(async () => {
    // close() waits (closeTimeoutMs, on the fake clock) for a tools/call a script never answers.
    for (const client of connected) await settle(client.close());
    connected.clear();
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
}

/** Gaps between consecutive times. */
export function gaps(times: number[]): number[] {
  return times.slice(1).map((time, index) => time - (times[index] as number));
}

/** Lets fake time run, a second at a time, until `promise` settles (bounded: at most 100 s). */
/** Whether `promise` has settled after the microtasks and timers due so far ran. */
export function settledFlag(promise: Promise<unknown>): () => boolean {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

export async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.finally(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  for (let step = 0; step < 100 && !done; step++) await vi.advanceTimersByTimeAsync(1000);
  return promise;
}
